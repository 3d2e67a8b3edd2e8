/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.h - one record of the stream, and the table of record types.
 */
#ifndef PS_RECORD_H
#define PS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi.h"

enum ps_record_class {
	PS_CLASS_UNKNOWN,
	PS_CLASS_HEADER,   /* ATTR, FEATURE, TRACING_DATA...: describe the stream */
	PS_CLASS_SIDEBAND, /* COMM, MMAP, FORK...: the kernel's account of the world */
	PS_CLASS_SAMPLE,   /* SAMPLE */
	PS_CLASS_CONTROL,  /* FINISHED_ROUND, FINISHED_INIT, COMPRESSED */
};

/* ps_record.flags */
#define PS_RECORD_INNER 0x1     /* decompressed from a COMPRESSED record */
#define PS_RECORD_SYNTH 0x2     /* made by the library (a perf.data file shown as a stream) */
#define PS_RECORD_CONTAINER 0x4 /* a COMPRESSED record whose contents are also delivered */

/**
 * struct ps_record - one record, as found in the input.
 * @data: the record's bytes, header first, in the input's byte order; for TRACING_DATA and
 *        AUXTRACE the out-of-band payload follows the @size bytes (not for an AUXTRACE
 *        read with PS_INPUT_SKIP_AUX: then @len is @size)
 * @len: bytes at @data: @size plus the out-of-band payload
 * @type, @misc, @size: the record header, in host order
 * @offset: byte offset of the record in the input (for a decompressed record, the offset of
 *          the COMPRESSED record it came from)
 * @seq: arrival number, counting from 0
 * @flags: PS_RECORD_*
 *
 * The bytes belong to whoever produced the record (the input, or the order view) and stay
 * valid until that producer's next call.
 */
struct ps_record {
	const unsigned char *data;
	size_t len;
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint64_t offset;
	uint64_t seq;
	unsigned int flags;
};

/**
 * ps_record_type_name() - perf's name of a record type ("SAMPLE", "MMAP2", "FEATURE"...).
 * Return: a static string; NULL for a type we do not know.
 */
const char *ps_record_type_name(uint32_t type);

/**
 * ps_record_type_min_size() - the bytes of @type's fixed fields, its header included; a
 * record shorter than that is corrupt.  8 for a type with no fixed fields or not known.
 */
unsigned int ps_record_type_min_size(uint32_t type);

/**
 * ps_record_type_class() - what kind of record @type is.
 */
enum ps_record_class ps_record_type_class(uint32_t type);

/**
 * ps_record_type_repeats_per_piece() - whether every piece of one recording (the inputs
 * pcat joins, psplit's pieces) carries its own copy of a @type record: the header records
 * and FINISHED_INIT, BUILD_ID excepted (a piece's BUILD_IDs are its own).  A joined stream
 * keeps the first piece's copy only.
 */
bool ps_record_type_repeats_per_piece(uint32_t type);

/**
 * ps_record_type_has_trailer() - true when records of @type end with a sample_id trailer
 * under sample_id_all (the kernel types other than SAMPLE).
 */
bool ps_record_type_has_trailer(uint32_t type);

/**
 * ps_feature_name() - perf's name of a feature id ("hostname", "event_desc"...).
 * Return: a static string, or NULL for an id we do not know.
 */
const char *ps_feature_name(uint64_t feat);

#endif
