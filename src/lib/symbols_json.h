/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols_json.h - the symbol keys of a sample's JSON object (ptojson): kept apart from
 * the sample encoder so that the encoder stays a pure function of the record.
 */
#ifndef PS_SYMBOLS_JSON_H
#define PS_SYMBOLS_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "sample.h"
#include "symbols.h"

/**
 * ps_symbols__json() - add "sym", "symoff" and "dso" for the sample's ip to @obj, and turn
 * its "callchain" (when present) into an array of frames {"ip", "sym", "symoff", "dso"} in
 * perf script's order; a key whose value is unknown is left out.  With @st NULL (no
 * symbols wanted) only the frames change: {"ip"} objects, markers left out.
 * @obj: the sample's object (ps_sample_json()); changed in place
 * @misc: the SAMPLE record's header misc
 * Return: 0, or -1 when out of memory (@obj may then be half changed).
 */
int ps_symbols__json(struct ps_symbols *st, json_t *obj, const struct ps_sample *smp,
                     uint16_t misc);

#endif
