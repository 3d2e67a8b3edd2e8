/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * signals.h - the one signal setup every program shares.
 */
#ifndef PS_SIGNALS_H
#define PS_SIGNALS_H

#include <signal.h>

/* Set by SIGINT / SIGTERM; read loops test it. */
extern volatile sig_atomic_t ps_stop;

/**
 * ps_signals__init() - ignore SIGPIPE (writes then fail with EPIPE) and make SIGINT and
 * SIGTERM set ps_stop, without SA_RESTART so a blocked read returns EINTR.
 */
void ps_signals__init(void);

/**
 * ps_signals__child_reset() - in a forked child before exec: default SIGPIPE, SIGINT, SIGTERM.
 */
void ps_signals__child_reset(void);

#endif
