# svm_data.sh: generated LIBSVM-format data for the svm CLI tests (sourced
# by test_svm_types.sh and test_svm_prob.sh).

# svm_gen SEED KIND N FEATURES: N points of FEATURES features uniform in
# [-1, 1]; KIND bin (labels +-1), multi (1, 2, 3) or reg (a noisy value).
svm_gen() {
	awk -v seed="$1" -v kind="$2" -v n="$3" -v f="$4" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++) {
			line = ""
			for (j = 1; j <= f; j++) {
				x[j] = 2 * rand() - 1
				line = line sprintf(" %d:%.6g", j, x[j])
			}
			noise = (rand() + rand() + rand() - 1.5) * 0.3
			if (kind == "reg") y = sprintf("%.6g", x[1] + x[2] - x[3] + 0.5 * x[1] * x[2] + noise)
			else if (kind == "multi") y = 1 + int((x[1] + 1) * 1.5 + noise) % 3
			else y = (x[1] + x[2] * x[3] + noise > 0) ? 1 : -1
			print y line
		}
	}'
}
