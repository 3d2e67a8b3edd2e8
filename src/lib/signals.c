// SPDX-License-Identifier: GPL-2.0-only
/*
 * signals.c - SIGPIPE ignored, SIGINT/SIGTERM turned into ps_stop, a first SIGINT into a
 * short drain of the live inputs (signals.h).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "signals.h"

volatile sig_atomic_t ps_stop;
volatile sig_atomic_t ps_interrupted;
volatile sig_atomic_t ps_winding_down;

/* ps_signals__wind_down() was called; the handler reads it */
static volatile sig_atomic_t wind_down;

/* live inputs open; the handler reads it */
static volatile sig_atomic_t live_inputs;
/* the drain's clock (ns, CLOCK_MONOTONIC), kept by the reading thread: when it saw the
 * signal first, and when a byte last came */
static uint64_t drain_start, drain_quiet_from;

static void on_stop(int sig)
{
	if (wind_down && !ps_winding_down && !ps_stop) {
		ps_winding_down = 1;
		return;
	}
	if (sig == SIGINT && live_inputs > 0 && !ps_interrupted && !ps_stop) {
		ps_interrupted = 1;
		return;
	}
	ps_stop = 1;
}

void ps_signals__init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_stop;
	sa.sa_flags = 0; /* no SA_RESTART: a blocked read must see the signal */
	/* one handler at a time: a SIGTERM in the middle of a SIGINT's is a second signal */
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void ps_signals__wind_down(void)
{
	wind_down = 1;
}

void ps_signals__child_reset(void)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void ps_signals__live_input(bool open)
{
	live_inputs += open ? 1 : -1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int ps_signals__drain_wait(bool live, bool progress)
{
	uint64_t now, end, quiet_end;

	if (ps_stop)
		return 0;
	if (!ps_interrupted)
		return -1;
	if (!live) {
		ps_stop = 1;
		return 0;
	}
	now = mono_ns();
	if (!drain_start)
		drain_start = drain_quiet_from = now;
	if (progress)
		drain_quiet_from = now;
	end = drain_start + PS_DRAIN_MAX_MS * 1000000ull;
	quiet_end = drain_quiet_from + PS_DRAIN_QUIET_MS * 1000000ull;
	if (quiet_end < end)
		end = quiet_end;
	if (now >= end) {
		ps_stop = 1;
		return 0;
	}
	return (int)((end - now + 999999) / 1000000);
}
