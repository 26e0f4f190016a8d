/* de-user-objective.c: the body of a user objective (see de-user-file.ini):
 * a rotated-free, ill-conditioned ellipsoid, sum 10^(6 k / (n - 1)) x_k^2,
 * minimum 0 at x = 0. Valid as C and as CUDA C++; x and n are given. */
float s = 0.0f;
for (int k = 0; k < n; k++) {
	float w = n > 1 ? powf(10.0f, 6.0f * (float)k / (float)(n - 1)) : 1.0f;
	s += w * x[k] * x[k];
}
return s;
