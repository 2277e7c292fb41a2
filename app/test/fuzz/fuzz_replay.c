/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Replays fuzz inputs through a libFuzzer target without libFuzzer, so
 * the regression corpora (app/test/fuzz/corpus/<target>/: seeds and every
 * input that ever crashed a target) run as ordinary tests in every build,
 * gcc included.
 *
 *   fuzz-replay-<target> FILE|DIR...
 *
 * Calls LLVMFuzzerInitialize() if the target has one, then
 * LLVMFuzzerTestOneInput() on every file (directories: every regular file
 * in them, in name order). A target reports a failure by aborting.
 * Exit: 0 when all ran, 77 when no input was found, 1 on a read error.
 */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned int nb_run;

static int
run_file(const char *path)
{
	uint8_t *buf;
	FILE *f;
	long len;

	f = fopen(path, "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	/* exact size, so ASan sees reads past the input */
	buf = malloc(len != 0 ? (size_t)len : 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	printf("replay %s (%ld bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	nb_run++;
	return 0;
}

static int
name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
run_path(const char *path)
{
	struct dirent **ents;
	struct stat sb;
	char p[4096];
	int n, i, ret = 0;

	if (stat(path, &sb) != 0) {
		printf("%s: not found, skipped\n", path);
		return 0;
	}
	if (!S_ISDIR(sb.st_mode))
		return run_file(path);
	n = scandir(path, &ents, NULL, name_cmp);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", path, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(p, &sb) == 0 &&
		    S_ISREG(sb.st_mode) && run_file(p) != 0)
			ret = -1;
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int
main(int argc, char **argv)
{
	int i, ret = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		if (run_path(argv[i]) != 0)
			ret = 1;
	printf("%u inputs replayed\n", nb_run);
	if (ret == 0 && nb_run == 0)
		return 77;
	return ret;
}
