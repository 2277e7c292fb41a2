/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-test-pcpu-perf: the library beside what DPDK users pick instead,
 * measured in one run. This file only parses the command line, registers
 * the cases with Google Benchmark and turns each C result (perf_shim.h)
 * into counters; every measured body is C.
 *
 *   dpdk-test-pcpu-perf [EAL args] -- [--smoke] [--naive-mb=N]
 *           [Google Benchmark flags: --benchmark_filter=..., ...]
 *
 * Every case runs once (Iterations(1), manual time): its interleaved
 * rounds and their medians are the C body's (perf_shim.h). Cases that need
 * more lcores than the EAL has are not registered.
 */

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <rte_eal.h>
#include <rte_debug.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>

#include "perf_shim.h"

namespace {

using CaseFn = std::function<int(perf_result *)>;

void
run_case(benchmark::State &state, const CaseFn &fn)
{
	perf_result r;

	std::memset(&r, 0, sizeof(r));
	for (auto _ : state) {
		std::memset(&r, 0, sizeof(r));
		fn(&r);
		state.SetIterationTime(r.seconds > 0 ? r.seconds : 1e-9);
	}
	if (r.error) {
		state.SkipWithError(r.label);
		return;
	}
	for (unsigned int i = 0; i < r.nb_counters; i++)
		state.counters[r.counters[i].name] =
			benchmark::Counter(r.counters[i].value);
	state.SetLabel(r.label);
}

void
add_case(const std::string &name, CaseFn fn)
{
	benchmark::RegisterBenchmark(name.c_str(),
		[fn](benchmark::State &st) { run_case(st, fn); })
		->Iterations(1)
		->UseManualTime()
		->Unit(benchmark::kMillisecond);
}

std::string
lc(unsigned int n)
{
	return "/lcores:" + std::to_string(n);
}

void
register_cases()
{
	const unsigned int have = perf_nb_lcores();
	const unsigned int objs[] = { 1, 100, 10000, 100000, 1000000 };

	/* 1. access: every scheme interleaved in one case */
	for (unsigned int n : objs)
		for (int rnd = 0; rnd < (n > 1 ? 2 : 1); rnd++)
			for (unsigned int l = 1; l <= 2 && l <= have; l++)
				add_case("access/objs:" + std::to_string(n) +
					(rnd ? "/rand" : "/seq") + lc(l),
					[=](perf_result *r) {
						return perf_access(n, rnd, l, r);
					});

	/* 2. the seed table: without caches, and with them (2 MiB pages) */
	for (size_t size : { 4, 16, 64, 256, 1024 }) {
		add_case("alloc_nocache/pcpu/size:" + std::to_string(size),
			[=](perf_result *r) {
				return perf_seed_pcpu(size, 0, r);
			});
		add_case("alloc_nocache/pcpu_2m/size:" + std::to_string(size),
			[=](perf_result *r) {
				return perf_seed_pcpu_huge(size, r);
			});
		add_case("alloc_cache/pcpu_2m/size:" + std::to_string(size),
			[=](perf_result *r) {
				return perf_seed_pcpu_huge_cached(size, r);
			});
		add_case("alloc_nocache/naive_zmalloc/size:" +
			std::to_string(size),
			[=](perf_result *r) {
				return perf_seed_naive(size, r);
			});
	}
	add_case("alloc_nocache/pcpu_aligned/size:4/align:8",
		[](perf_result *r) { return perf_seed_pcpu(4, 8, r); });
	/* allocation against the library's own pool, warm */
	for (size_t size : { 16, 64, 256 })
		add_case("alloc_vs_pool/size:" + std::to_string(size),
			[=](perf_result *r) {
				return perf_alloc_vs_pool(size, r);
			});

	/* 3. cached pairs beside rte_mempool */
	for (int nc = 0; nc < 2; nc++)
		for (unsigned int l = 1; l <= 2 && l <= have; l++)
			add_case(std::string(nc ? "cached_nocache" : "cached") +
				"/size:16" + lc(l),
				[=](perf_result *r) {
					return perf_pairs(nc, 16, l, r);
				});

	/* 4. churn */
	for (int nc = 0; nc < 2; nc++)
		for (int huge = 0; huge < 2; huge++)
			for (unsigned int p = 1; p <= 2 && p <= have; p++)
				add_case(std::string("churn/") +
					(nc ? "pcpu_nocache" : "pcpu") +
					(huge ? "/pages:2M" : "/pages:4K") +
					"/producers:" + std::to_string(p),
					[=](perf_result *r) {
						return perf_churn(p, huge, nc, r);
					});

	/* 5. init modes; lcores with memory = EAL lcores */
	for (size_t size : { 16, 64, 256, 1024, 4096 })
		add_case("init/size:" + std::to_string(size) +
			"/mem_lcores:" + std::to_string(have),
			[=](perf_result *r) { return perf_init(size, r); });

	/* 6. reclaim */
	for (int huge = 0; huge < 2; huge++)
		add_case(std::string("reclaim/pages:") + (huge ? "2M" : "4K"),
			[=](perf_result *r) { return perf_reclaim(huge, r); });

	/* 8. the "pcpu" mempool ops beside ring_mp_mc */
	for (unsigned int l = 1; l <= 2 && l <= have; l++)
		add_case("mempool_ops/get_put/size:16" + lc(l),
			[=](perf_result *r) { return perf_ops_pairs(l, r); });
	add_case("mempool_ops/populate/objs:1000000",
		[](perf_result *r) { return perf_ops_populate(1000000, r); });

	/* 9. aliasing of lcores' copies, by unit layout (main lcore) */
	for (int op = 0; op < PERF_ALIAS_OP_MAX; op++)
		for (unsigned int copies : { 2, 8 })
			for (int huge = 0; huge < 2; huge++)
				add_case(std::string("alias/op:") +
					perf_alias_op_name(
						static_cast<perf_alias_op>(op)) +
					"/copies:" + std::to_string(copies) +
					(huge ? "/pages:2M" : "/pages:4K"),
					[=](perf_result *r) {
						return perf_alias(
							static_cast<perf_alias_op>(op),
							copies, huge, r);
					});

	/* 10. a shared area (secondary processes) beside a private one */
	for (unsigned int n : { 1u, 1000000u })
		add_case("backing/access/objs:" + std::to_string(n),
			[=](perf_result *r) {
				return perf_backing_access(n, r);
			});
	add_case("backing/readers/objs:100000",
		[](perf_result *r) { return perf_backing_readers(100000, r); });
	add_case("backing/pool/size:16",
		[](perf_result *r) { return perf_backing_pool(r); });
	for (int huge = 0; huge < 2; huge++)
		add_case(std::string("backing/alloc/pages:") +
			(huge ? "2M" : "4K"),
			[=](perf_result *r) {
				return perf_backing_alloc(huge, r);
			});

	/* 11. owners: charging the root, an owner, an owner with a limit */
	for (size_t size : { 16, 64, 256, 1024 })
		for (unsigned int l = 1; l <= 2 && l <= have; l++)
			add_case("owner/pairs/size:" + std::to_string(size) +
				lc(l), [=](perf_result *r) {
					return perf_owner_pairs(size, l, r);
				});
	add_case("owner/utilisation",
		[](perf_result *r) { return perf_owner_utilisation(r); });

	/* 7. scaling */
	for (unsigned int l : { 1, 2, 4, 8 }) {
		if (l > have)
			continue;
		for (int nc = 0; nc < 2; nc++)
			add_case(std::string(nc ? "scaling_nocache" : "scaling") +
				lc(l), [=](perf_result *r) {
					return perf_scaling(nc, l, r);
				});
	}
}

/* The first "model name" of /proc/cpuinfo. */
std::string
cpu_model()
{
	std::FILE *f = std::fopen("/proc/cpuinfo", "r");
	char line[256];
	std::string model = "?";

	if (f == nullptr)
		return model;
	while (std::fgets(line, sizeof(line), f) != nullptr) {
		const char *colon = std::strchr(line, ':');

		if (std::strncmp(line, "model name", 10) != 0 ||
				colon == nullptr)
			continue;
		model = colon + 1;
		model.erase(0, model.find_first_not_of(" \t"));
		model.erase(model.find_last_not_of(" \t\n") + 1);
		break;
	}
	std::fclose(f);
	return model;
}

/* /proc/loadavg's first three fields. */
std::string
loadavg()
{
	std::FILE *f = std::fopen("/proc/loadavg", "r");
	double l1, l5, l15;
	char buf[64] = "?";

	if (f == nullptr)
		return buf;
	if (std::fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
		std::snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", l1, l5, l15);
	std::fclose(f);
	return buf;
}

} // namespace

int
main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		rte_exit(EXIT_FAILURE, "rte_eal_init failed\n");
	argc -= ret;
	argv += ret;

	/* our own options, before Google Benchmark's */
	std::vector<char *> rest;
	for (int i = 0; i < argc; i++) {
		if (i > 0 && std::strcmp(argv[i], "--smoke") == 0)
			perf_set_smoke(1);
		else if (i > 0 && (std::strcmp(argv[i], "--help") == 0 ||
				std::strcmp(argv[i], "-h") == 0)) {
			std::printf("usage: %s [EAL args] -- [--smoke] "
				"[--naive-mb=N] [Google Benchmark flags]\n"
				"  --smoke        every case, briefly (one round of "
				"short windows, fewer objects in the\n"
				"                 allocation cases; nothing to "
				"judge a target by)\n"
				"  --naive-mb=N   EAL memory the naive allocator "
				"may use (default 256); beyond it, fewer objects\n"
				"                 and times scaled to 2^20\n"
				"Google Benchmark flags follow.\n", argv[0]);
			rest.push_back(argv[i]);
		} else if (i > 0 &&
				std::strncmp(argv[i], "--naive-mb=", 11) == 0)
			perf_set_naive_budget_mb(
				(unsigned int)std::strtoul(argv[i] + 11,
					nullptr, 10));
		else
			rest.push_back(argv[i]);
	}
	int bargc = static_cast<int>(rest.size());

	rest.push_back(nullptr);
	benchmark::Initialize(&bargc, rest.data());
	if (benchmark::ReportUnrecognizedArguments(bargc, rest.data()))
		return 2;
	if (rte_pcpu_init(nullptr) != 0)
		rte_exit(EXIT_FAILURE, "rte_pcpu_init failed\n");

	benchmark::AddCustomContext("pcpu_mode",
		perf_is_smoke() ? "smoke" : "full");
	benchmark::AddCustomContext("eal_lcores",
		std::to_string(perf_nb_lcores()));
	benchmark::AddCustomContext("eal_cpus",
		std::to_string(perf_nb_cpus(perf_nb_lcores())));
	benchmark::AddCustomContext("eal_hugepages",
		rte_eal_has_hugepages() ? "yes" : "no");
	benchmark::AddCustomContext("cpu_model", cpu_model());
	benchmark::AddCustomContext("loadavg_start", loadavg());
	benchmark::AddCustomContext("rounds", std::to_string(perf_rounds()));
	benchmark::AddCustomContext("window_ms",
		std::to_string(perf_window_ms()));
	register_cases();
	benchmark::RunSpecifiedBenchmarks();
	std::printf("loadavg_end: %s\n", loadavg().c_str());
	benchmark::Shutdown();
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return 0;
}
