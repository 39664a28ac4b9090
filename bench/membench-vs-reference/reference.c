/*
 * A minimal, independent bandwidth reference for pmolap's membench: AVX2 sequential
 * reads or non-temporal writes, "individual" access (thread i owns range/threads bytes
 * and sweeps it in access_size chunks), threads pinned to CPU i. The inner loops move
 * 512 B per iteration (16 ymm loads or stream stores), as membench's kernels do.
 *
 *   gcc -O3 -mavx2 -pthread -o reference reference.c
 *   ./reference <read|ntwrite> <threads> <range_bytes> <access_size> <seconds|Np> <reps>
 *
 * <seconds> (e.g. 2 or 0.5) runs passes until that much time has passed; "Np" (e.g.
 * 3p) runs exactly N passes over each thread's share. Prints `rep N gib_s X` per rep,
 * then `median gib_s X`. GiB/s = bytes accessed by all threads / wall time from the
 * common start (a barrier) to the end of the slowest thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_READ, MODE_NTWRITE };

struct config {
    enum mode mode;
    int threads;
    size_t range;
    size_t access;
    double seconds; /* > 0: time-bound */
    long passes;    /* > 0: pass-bound */
    int reps;
    char *base;
    size_t share; /* bytes per thread, a multiple of access */
    pthread_barrier_t start, end;
};

struct worker {
    struct config *cfg;
    int id;
    uint64_t bytes;    /* of the current rep */
    uint64_t checksum; /* folded loads, so reads cannot be optimised away */
};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One 32-byte load or stream store at p + off + 32 * k. */
#define LD(k) _mm256_load_si256((const __m256i *)(p + off + 32 * (k)))
#define ST(k) _mm256_stream_si256((__m256i *)(p + off + 32 * (k)), v)

/* Loads every byte of p[0..n) (n a multiple of 512), 512 B per iteration. */
static inline __m256i read_access(const char *p, size_t n, __m256i acc) {
    __m256i a0 = acc, a1 = _mm256_setzero_si256(), a2 = _mm256_setzero_si256(),
            a3 = _mm256_setzero_si256();
    for (size_t off = 0; off < n; off += 512) {
        a0 = _mm256_xor_si256(a0, LD(0));
        a1 = _mm256_xor_si256(a1, LD(1));
        a2 = _mm256_xor_si256(a2, LD(2));
        a3 = _mm256_xor_si256(a3, LD(3));
        a0 = _mm256_xor_si256(a0, LD(4));
        a1 = _mm256_xor_si256(a1, LD(5));
        a2 = _mm256_xor_si256(a2, LD(6));
        a3 = _mm256_xor_si256(a3, LD(7));
        a0 = _mm256_xor_si256(a0, LD(8));
        a1 = _mm256_xor_si256(a1, LD(9));
        a2 = _mm256_xor_si256(a2, LD(10));
        a3 = _mm256_xor_si256(a3, LD(11));
        a0 = _mm256_xor_si256(a0, LD(12));
        a1 = _mm256_xor_si256(a1, LD(13));
        a2 = _mm256_xor_si256(a2, LD(14));
        a3 = _mm256_xor_si256(a3, LD(15));
    }
    return _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
}

/* Streams v over p[0..n) (n a multiple of 512), 512 B per iteration, then sfence. */
static inline void ntwrite_access(char *p, size_t n, __m256i v) {
    for (size_t off = 0; off < n; off += 512) {
        ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
        ST(8); ST(9); ST(10); ST(11); ST(12); ST(13); ST(14); ST(15);
    }
    _mm_sfence();
}

static void *run_worker(void *arg) {
    struct worker *w = arg;
    struct config *c = w->cfg;
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->id % ncpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        exit(1);
    }
    char *lo = c->base + (size_t)w->id * c->share;
    char *hi = lo + c->share;
    /* Check the clock every ~1 MiB of accesses, so time-bound runs stop promptly. */
    size_t check_every = c->access >= (1 << 20) ? 1 : (1 << 20) / c->access;
    __m256i pattern = _mm256_set1_epi64x(0x706d6f6c61700000LL);
    __m256i acc = _mm256_setzero_si256();
    for (int rep = 0; rep < c->reps; rep++) {
        uint64_t bytes = 0;
        pthread_barrier_wait(&c->start);
        double deadline = now_s() + c->seconds;
        long pass = 0;
        int done = 0;
        size_t since_check = 0;
        while (!done) {
            for (char *p = lo; p < hi; p += c->access) {
                if (c->mode == MODE_READ)
                    acc = read_access(p, c->access, acc);
                else
                    ntwrite_access(p, c->access, pattern);
                bytes += c->access;
                if (c->passes == 0 && ++since_check == check_every) {
                    since_check = 0;
                    if (now_s() >= deadline) {
                        done = 1;
                        break;
                    }
                }
            }
            if (c->passes > 0 && ++pass == c->passes)
                done = 1;
        }
        w->bytes = bytes;
        pthread_barrier_wait(&c->end);
        pthread_barrier_wait(&c->start); /* main has read w->bytes */
    }
    uint64_t words[4];
    _mm256_storeu_si256((__m256i *)words, acc);
    w->checksum = words[0] ^ words[1] ^ words[2] ^ words[3];
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t parse_size(const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) {
        fprintf(stderr, "bad size `%s`\n", s);
        exit(2);
    }
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    }
    if (*end) {
        fprintf(stderr, "bad size `%s`\n", s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr,
                "usage: %s <read|ntwrite> <threads> <range_bytes> <access_size> <seconds|Np> <reps>\n",
                argv[0]);
        return 2;
    }
    struct config c = {0};
    if (!strcmp(argv[1], "read"))
        c.mode = MODE_READ;
    else if (!strcmp(argv[1], "ntwrite"))
        c.mode = MODE_NTWRITE;
    else {
        fprintf(stderr, "mode must be read or ntwrite, not `%s`\n", argv[1]);
        return 2;
    }
    c.threads = atoi(argv[2]);
    c.range = parse_size(argv[3]);
    c.access = parse_size(argv[4]);
    size_t n = strlen(argv[5]);
    if (n > 0 && argv[5][n - 1] == 'p')
        c.passes = atol(argv[5]);
    else
        c.seconds = atof(argv[5]);
    c.reps = atoi(argv[6]);
    if (c.threads < 1 || c.reps < 1 || (c.passes <= 0 && c.seconds <= 0)) {
        fprintf(stderr, "threads, reps and seconds/passes must be positive\n");
        return 2;
    }
    if (c.access < 512 || (c.access & (c.access - 1))) {
        fprintf(stderr, "access size must be a power of two >= 512\n");
        return 2;
    }
    c.share = c.range / (size_t)c.threads / c.access * c.access;
    if (c.share == 0) {
        fprintf(stderr, "range too small for %d threads of %zu B accesses\n", c.threads, c.access);
        return 2;
    }
    c.base = mmap(NULL, c.range, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c.base == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(c.base, 0x5a, c.range); /* prefault */

    pthread_barrier_init(&c.start, NULL, (unsigned)c.threads + 1);
    pthread_barrier_init(&c.end, NULL, (unsigned)c.threads + 1);
    struct worker *ws = calloc((size_t)c.threads, sizeof *ws);
    pthread_t *ts = calloc((size_t)c.threads, sizeof *ts);
    for (int i = 0; i < c.threads; i++) {
        ws[i] = (struct worker){.cfg = &c, .id = i};
        if (pthread_create(&ts[i], NULL, run_worker, &ws[i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    double *gib_s = calloc((size_t)c.reps, sizeof *gib_s);
    for (int rep = 0; rep < c.reps; rep++) {
        pthread_barrier_wait(&c.start);
        double t0 = now_s();
        pthread_barrier_wait(&c.end);
        double t1 = now_s();
        uint64_t bytes = 0;
        for (int i = 0; i < c.threads; i++)
            bytes += ws[i].bytes;
        pthread_barrier_wait(&c.start); /* bytes read: workers go on (or finish) */
        gib_s[rep] = (double)bytes / (t1 - t0) / (double)(1ULL << 30);
        printf("rep %d gib_s %.3f\n", rep, gib_s[rep]);
        fflush(stdout);
    }
    uint64_t checksum = 0;
    for (int i = 0; i < c.threads; i++) {
        pthread_join(ts[i], NULL);
        checksum ^= ws[i].checksum;
    }
    qsort(gib_s, (size_t)c.reps, sizeof *gib_s, cmp_double);
    double median = c.reps % 2 ? gib_s[c.reps / 2]
                               : (gib_s[c.reps / 2 - 1] + gib_s[c.reps / 2]) / 2;
    printf("median gib_s %.3f\n", median);
    printf("checksum %016llx\n", (unsigned long long)checksum);
    return 0;
}
