/* gp_ops.h: THE definition of every GP function (one X-macro table).
 * Included by the CPU evaluators, the tree engine (names, arities) and, via
 * the generator, by the CUDA interpreters, so there is exactly one semantics.
 *
 * GP_FLOAT_OPS(X): X(ENUM, "name", arity, expression over a, b, c (float))
 * GP_BOOL_OPS(X):  X(ENUM, "name", arity, expression over a, b (uint32_t),
 *                    32 fitness cases per word: sub-machine-code GP)
 *
 * Protected forms (documented in docs/gp.md):
 *   a / b    = 1            when |b| < GP_DIV_EPS (1e-6)
 *   log a    = log |a|, and 0 when |a| < GP_DIV_EPS
 *   exp a    = exp(min(a, 80))       (no overflow to inf)
 *   sqrt a   = sqrt |a|
 *   square a, cube a, pow4 a = a^2, a^3, a^4 clamped to +-FLT_MAX (GP_BIG)
 *   aq a b   = a / sqrt(1 + b^2)     (the analytic quotient; never divides by 0)
 *   tanh, abs: exact functions, finite everywhere
 *   a > b, a < b, a == b  give 1.0 or 0.0
 *   AND, OR  treat non-zero as true and give 1.0 or 0.0
 *   IF a b c = b if a != 0 else c
 */
#ifndef EVO_GP_OPS_H
#define EVO_GP_OPS_H

#include "common.h"
#include "gp_math.h"

#define GP_DIV_EPS 1e-6f
#define GP_EXP_MAX 80.0f
/* The largest finite float: powers are clamped to +-GP_BIG. */
#define GP_BIG 0x1.fffffep127f

/* The same functions on every backend (gp_math.h: polynomials with explicit
 * FMAs, identical bits on CPU and GPU, vectorisable by gcc). GP_FMIN is
 * fminf written as a select so that it vectorises too (same result: the
 * other operand when one is NaN). */
#define GP_FABS(x) fabsf(x)
#define GP_LOG(x) gp_logf(x)
#define GP_EXP(x) gp_expf(x)
#define GP_SIN(x) gp_sinf(x)
#define GP_COS(x) gp_cosf(x)
#define GP_FMIN(x, y) ((x) < (y) || (y) != (y) ? (x) : (y))

RT_HD float gp_pdiv(float a, float b) { return GP_FABS(b) < GP_DIV_EPS ? 1.0f : a / b; }
RT_HD float gp_plog(float a) { return GP_FABS(a) < GP_DIV_EPS ? 0.0f : GP_LOG(GP_FABS(a)); }
RT_HD float gp_pexp(float a) { return GP_EXP(GP_FMIN(a, GP_EXP_MAX)); }
/* sqrtf is IEEE (correctly rounded) on both backends; so are the rest. */
RT_HD float gp_psqrt(float a) { return sqrtf(GP_FABS(a)); }
RT_HD float gp_clamp_big(float v) { return v > GP_BIG ? GP_BIG : v < -GP_BIG ? -GP_BIG : v; }
RT_HD float gp_square(float a) { return gp_clamp_big(a * a); }
RT_HD float gp_cube(float a) { return gp_clamp_big((a * a) * a); }
RT_HD float gp_pow4(float a) { return gp_clamp_big((a * a) * (a * a)); }
RT_HD float gp_aq(float a, float b) { return a / sqrtf(1.0f + b * b); }

#define GP_FLOAT_OPS(X) \
	X(ADD, "+",   2, (a + b))                                   \
	X(SUB, "-",   2, (a - b))                                   \
	X(MUL, "*",   2, (a * b))                                   \
	X(DIV, "/",   2, gp_pdiv(a, b))                             \
	X(SIN, "sin", 1, GP_SIN(a))                                 \
	X(COS, "cos", 1, GP_COS(a))                                 \
	X(LOG, "log", 1, gp_plog(a))                                \
	X(EXP, "exp", 1, gp_pexp(a))                                \
	X(GT,  ">",   2, (a > b ? 1.0f : 0.0f))                     \
	X(LT,  "<",   2, (a < b ? 1.0f : 0.0f))                     \
	X(EQ,  "==",  2, (a == b ? 1.0f : 0.0f))                    \
	X(AND, "AND", 2, ((a != 0.0f && b != 0.0f) ? 1.0f : 0.0f))  \
	X(OR,  "OR",  2, ((a != 0.0f || b != 0.0f) ? 1.0f : 0.0f))  \
	X(IF,  "IF",  3, (a != 0.0f ? b : c))                       \
	X(SQRT, "sqrt", 1, gp_psqrt(a))                             \
	X(SQUARE, "square", 1, gp_square(a))                        \
	X(CUBE, "cube", 1, gp_cube(a))                              \
	X(POW4, "pow4", 1, gp_pow4(a))                              \
	X(TANH, "tanh", 1, gp_tanhf(a))                             \
	X(ABS, "abs", 1, GP_FABS(a))                                \
	X(AQ,  "aq",  2, gp_aq(a, b))

#define GP_BOOL_OPS(X) \
	X(BAND,  "and",  2, (a & b))      \
	X(BOR,   "or",   2, (a | b))      \
	X(BNAND, "nand", 2, (~(a & b)))   \
	X(BNOR,  "nor",  2, (~(a | b)))   \
	X(BNOT,  "not",  1, (~a))         \
	X(BIF,   "if",   3, ((a & b) | (~a & c)))

/* Opcodes: float ops, then Boolean ops, then the two terminal kinds (new
 * float ops go after IF, so the older float ones keep their numbers). */
enum gp_opcode {
#define GP_ENUM_(E, name, arity, expr) GP_OP_##E,
	GP_FLOAT_OPS(GP_ENUM_)
	GP_BOOL_OPS(GP_ENUM_)
#undef GP_ENUM_
	GP_OP_COUNT,
	GP_TERM_VAR = GP_OP_COUNT,   /* an input variable X_i */
	GP_TERM_CONST                /* an ephemeral random constant */
};

/* Number of float operations: opcodes below it are float, those from it to
 * GP_OP_COUNT Boolean. */
enum {
#define GP_COUNT_(E, name, arity, expr) +1
	GP_NFLOAT_OPS = 0 GP_FLOAT_OPS(GP_COUNT_)
#undef GP_COUNT_
};

#endif
