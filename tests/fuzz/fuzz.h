/* fuzz.h: what the fuzz harnesses (tests/fuzz/fuzz_*.c) share: the libFuzzer
 * entry point's prototype and a way to hand a path-based reader the input
 * without touching the disk (an anonymous memfd named /proc/self/fd/N).
 *
 * Each harness is built twice: by tools/fuzz with clang and libFuzzer, and by
 * the normal build into tests/test_fuzz_corpus, which replays the committed
 * corpus (tests/fuzz/corpus/HARNESS/) through it. For the second, the entry
 * point is renamed per harness with -DLLVMFuzzerTestOneInput=fuzz_NAME_input
 * so that all harnesses link into one program. A harness returns 0 whatever
 * the input; a broken invariant aborts (libFuzzer reports it as a crash). */
#ifndef EVO_TESTS_FUZZ_H
#define EVO_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A file holding data[0..size): its path goes into path (a /proc/self/fd
 * name); returns the descriptor to close afterwards, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
	int fd = memfd_create("evoforge-fuzz", MFD_CLOEXEC);
	size_t done = 0;
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

/* data[0..size) as a fresh NUL-terminated string (stops at a NUL byte inside). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Aborts with a message when an invariant of a successful read is broken. */
#define FUZZ_CHECK(cond)                                                               \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: broken invariant: %s\n", __FILE__, __LINE__, \
				#cond);                                                \
			abort();                                                       \
		}                                                                      \
	} while (0)

#endif
