/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.h - the main() of a fuzz target built without libFuzzer (-DPS_FUZZ_REPLAY): run
 * the target once on each file named on the command line, so make unit replays the
 * corpora with the ordinary sanitizer build.
 */
#ifndef PS_FUZZ_REPLAY_H
#define PS_FUZZ_REPLAY_H

#ifdef PS_FUZZ_REPLAY
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		uint8_t *buf;
		size_t len = 0;
		ssize_t n;
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > (64 << 20)) {
			fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
			if (fd >= 0)
				close(fd);
			bad = 1;
			continue;
		}
		buf = malloc((size_t)st.st_size + 1);
		if (!buf)
			abort();
		while ((n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)n;
		close(fd);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	printf("%s: %d inputs replayed\n", argv[0], argc - 1);
	return bad;
}
#endif

#endif
