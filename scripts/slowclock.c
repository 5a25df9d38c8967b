// An LD_PRELOAD shim that slows CLOCK_MONOTONIC (and its variants) by SLOWCLOCK_DIV
// (default 200), for counting a drag step's instructions under callgrind.
//
// Under valgrind a drag step takes about a second, so the window's 150 ms "at rest"
// timers (the donut, the numbers table, the summary line) fire after every step and
// the count is of work a real drag never does. With the clock slowed they keep their
// place. Build and use (docs/performance.md):
//
//   cc -O2 -shared -fPIC -o /tmp/slowclock.so scripts/slowclock.c -ldl
//   LD_PRELOAD=/tmp/slowclock.so QT_QPA_PLATFORM=offscreen valgrind --tool=callgrind
//       --toggle-collect='*dragStep*' build/tests/bench/bench_shardscope
//       --benchmark_filter='BM_SliderToReplot/1024$' --benchmark_min_time=30
//   (one command line)
//
// Instructions per step: dragStep's inclusive count over the calls of
// QAbstractSlider::setValue under it (callgrind_annotate --inclusive=yes --tree=calling).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static int (*realClock)(clockid_t, struct timespec *);
static long long origin = -1;
static double divisor = 200;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!realClock) {
        *(void **)(&realClock) = dlsym(RTLD_NEXT, "clock_gettime"); // POSIX's dlsym idiom
        const char *d = getenv("SLOWCLOCK_DIV");
        if (d && atof(d) > 0)
            divisor = atof(d);
    }
    const int rc = realClock(id, ts);
    if (rc == 0 && (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW ||
                    id == CLOCK_MONOTONIC_COARSE || id == CLOCK_BOOTTIME)) {
        const long long ns = ts->tv_sec * 1000000000LL + ts->tv_nsec;
        if (origin < 0)
            origin = ns;
        const long long slowed = origin + (long long)((double)(ns - origin) / divisor);
        ts->tv_sec = slowed / 1000000000LL;
        ts->tv_nsec = slowed % 1000000000LL;
    }
    return rc;
}
