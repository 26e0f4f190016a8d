/* de_cec2022.h: the CEC 2022 bound-constrained suite (Kumar, Price, Mohamed,
 * Hadi, Suganthan 2021: F1..F12, D = 10 and 20) as tables over the basic
 * functions of de_cec2017.h, which includes this file after its enum and
 * evaluates both suites with the same code (CPU and fused kernel).
 *
 * Job function numbers: CEC 2022 F_k is fn = DE_CEC22 + k (41 .. 52), so
 * one int names a function of either suite (the kernel's DE_CEC_FN, the
 * job's cec_fn). Instance data as CEC 2017's (shift, rotation, shuffle per
 * component).
 *
 * Definitions: the organisers' C code (cec22_test_func.cpp), quirks kept:
 *   F3  Schaffer's F7 on the unrotated x - o (as CEC 2017's F6);
 *   F4  Rastrigin's formula (its rounding is overwritten, as CEC 2017's F8);
 *   F5  Levy with w = 1 + z / 4: optimum at the shift (unlike CEC 2017's F9);
 *   F7  its Schaffer F7 group reads the first shuffled values;
 *   F9  its fifth component (elliptic) and F10's first (Schwefel) are
 *       shifted but NOT rotated;
 *   composition biases are the code's {0, 200, 300, 100, 400} ... (not
 *   100 (i - 1)); F* = 300, 400, 600, 800, 900, 1800, 2000, 2200, 2300,
 *   2400, 2600, 2700. */
#ifndef EVO_DE_CEC2022_H
#define EVO_DE_CEC2022_H

#define DE_CEC22 40         /* fn = DE_CEC22 + k: CEC 2022 F_k */
#define DE_CEC_NOROT 64     /* composition component id flag: shifted, not rotated */

RT_HD int de_cec22_components(int k)
{
	return k == 9 || k == 11 ? 5 : k == 10 ? 3 : k == 12 ? 6 : 1;
}

/* CEC 2022 F_k's F*. */
RT_HD int de_cec22_fstar(int k)
{
	const int f[12] = { 300, 400, 600, 800, 900, 1800, 2000, 2200, 2300, 2400, 2600, 2700 };
	return k >= 1 && k <= 12 ? f[k - 1] : 0;
}

/* Component c of CEC 2022 F_k as de_cec_part (see there), and its bias. */
DE_CEC_HD int de_cec22_part(int k, int c, int *pct, float *sigma, float *lambda, float *bias)
{
	static const signed char simple[5] = { DE_CB_ZAKHAROV, DE_CB_ROSEN, DE_CB_SCHAFFER7, DE_CB_RASTRIGIN,
						DE_CB_LEVY0 };
	static const signed char hyb[3][12] = {
		{ DE_CB_BENT, 40, DE_CB_HGBAT, 40, DE_CB_RASTRIGIN, 20, -1, 0, -1, 0, -1, 0 },
		{ DE_CB_HGBAT, 10, DE_CB_KATSUURA, 20, DE_CB_ACKLEY, 20, DE_CB_RASTRIGIN, 20, DE_CB_SCHWEFEL, 10,
		  DE_CB_SCHAFFER7, 20 },
		{ DE_CB_KATSUURA, 30, DE_CB_HAPPYCAT, 20, DE_CB_GRIEROSEN, 20, DE_CB_SCHWEFEL, 10, DE_CB_ACKLEY, 20,
		  -1, 0 },
	};
	static const short cid[4][6] = {
		{ DE_CB_ROSEN, DE_CB_ELLIPTIC, DE_CB_BENT, DE_CB_DISCUS, DE_CB_ELLIPTIC | DE_CEC_NOROT, -1 },
		{ DE_CB_SCHWEFEL | DE_CEC_NOROT, DE_CB_RASTRIGIN, DE_CB_HGBAT, -1, -1, -1 },
		{ DE_CB_SCHAFFER6, DE_CB_SCHWEFEL, DE_CB_GRIEWANK, DE_CB_ROSEN, DE_CB_RASTRIGIN, -1 },
		{ DE_CB_HGBAT, DE_CB_RASTRIGIN, DE_CB_SCHWEFEL, DE_CB_BENT, DE_CB_ELLIPTIC, DE_CB_SCHAFFER6 },
	};
	static const float clam[4][6] = {
		{ 1.0f, 1e-6f, 1e-26f, 1e-6f, 1e-6f }, { 1.0f, 1.0f, 1.0f },
		{ 5e-4f, 1.0f, 10.0f, 1.0f, 10.0f }, { 10.0f, 10.0f, 2.5f, 1e-26f, 1e-6f, 5e-4f },
	};
	static const float csig[4][6] = {
		{ 10, 20, 30, 40, 50 }, { 20, 10, 10 }, { 20, 20, 30, 30, 20 }, { 10, 20, 30, 40, 50, 60 },
	};
	static const short cbias[4][6] = {
		{ 0, 200, 300, 100, 400 }, { 0, 200, 100 }, { 0, 200, 300, 400, 200 }, { 0, 300, 500, 100, 400, 200 },
	};
	*pct = 100;
	*sigma = 0.0f;
	*lambda = 1.0f;
	*bias = 0.0f;
	if (k >= 1 && k <= 5)
		return c == 0 ? simple[k - 1] : -1;
	if (k >= 6 && k <= 8) {
		if (c < 0 || c >= 6 || hyb[k - 6][2 * c] < 0)
			return -1;
		*pct = hyb[k - 6][2 * c + 1];
		return hyb[k - 6][2 * c];
	}
	if (k >= 9 && k <= 12 && c >= 0 && c < 6 && cid[k - 9][c] >= 0) {
		*sigma = csig[k - 9][c];
		*lambda = clam[k - 9][c];
		*bias = cbias[k - 9][c];
		return cid[k - 9][c];
	}
	return -1;
}

#endif
