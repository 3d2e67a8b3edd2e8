// SPDX-License-Identifier: GPL-2.0-only
/*
 * signals.c - SIGPIPE ignored, SIGINT/SIGTERM turned into ps_stop.
 */
#include <string.h>

#include "signals.h"

volatile sig_atomic_t ps_stop;

static void on_stop(int sig)
{
	(void)sig;
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
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void ps_signals__child_reset(void)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}
