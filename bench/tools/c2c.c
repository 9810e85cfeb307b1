/*
 * Cache-line round trip between two CPUs: how long one 64-byte line takes to go from one core to
 * the other and back. Run it before and after a queue benchmark; on a VM whose host moves the
 * vCPUs, the number jumps (an AMD EPYC VM of 2 vCPUs read 48-69 ns most of the time and 511-532 ns
 * for minutes), and every cross-core queue slows with it.
 *
 *   gcc -O2 -pthread bench/tools/c2c.c -o /tmp/c2c && /tmp/c2c [cpuA cpuB [round trips]]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t line[16] __attribute__((aligned(128)));
static long trips = 1000000;
static int cpu_a = 0, cpu_b = 1;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "cannot pin to cpu %d\n", cpu);
        exit(1);
    }
}

static void *answer(void *unused) {
    (void) unused;
    pin(cpu_b);
    for (uint64_t i = 1; i <= (uint64_t) trips; i++) {
        while (line[0] != 2 * i - 1) {
            __builtin_ia32_pause();
        }
        line[0] = 2 * i;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc >= 3) {
        cpu_a = atoi(argv[1]);
        cpu_b = atoi(argv[2]);
    }
    if (argc >= 4) {
        trips = atol(argv[3]);
    }
    pin(cpu_a);
    pthread_t other;
    pthread_create(&other, NULL, answer, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = 1; i <= (uint64_t) trips; i++) {
        line[0] = 2 * i - 1;
        while (line[0] != 2 * i) {
            __builtin_ia32_pause();
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(other, NULL);
    double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    printf("cpu %d <-> cpu %d: %.0f ns per round trip (%ld round trips)\n", cpu_a, cpu_b, ns / trips, trips);
    return 0;
}
