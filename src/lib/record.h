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
 * enum ps_field_kind - how a field of a record body is read (record_json.c shows it, swap.c
 * turns it: every kind but STR, MISC and BYTES is a number of the stream's byte order).
 */
enum ps_field_kind {
	PS_FIELD_I32,      /* a signed 32-bit number: pids and tids */
	PS_FIELD_U16,      /* an unsigned number of 16 bits */
	PS_FIELD_U32,      /* ... of 32 bits */
	PS_FIELD_U64,      /* ... of 64 bits */
	PS_FIELD_HEX,      /* a u64 shown as "0x...": addresses and lengths */
	PS_FIELD_COUNT,    /* a u64 that counts the entries of the body's tail */
	PS_FIELD_STR,      /* NUL-terminated text up to the end of the body, bytes as recorded */
	PS_FIELD_BYTES,    /* @width bytes as recorded (a tag) */
	PS_FIELD_MISC,     /* a bool: bit @off of the record header's misc, no body bytes */
	PS_FIELD_BUILD_ID, /* u8 size, u8 and u16 reserved, 20 bytes: the first size in hex */
};

/**
 * struct ps_record_field - one field of a record body.
 * @name: perf's name of it ("pid", "filename"...), the JSON key
 * @off: its byte offset in the body (after the 8-byte header); PS_FIELD_MISC: the misc bit
 * @kind: enum ps_field_kind
 * @width: the bytes it takes (0 for STR and MISC)
 */
struct ps_record_field {
	const char *name;
	uint16_t off;
	uint8_t kind;
	uint8_t width;
};

/* what follows the fixed fields of a body (before the sample_id trailer) */
enum ps_record_tail {
	PS_TAIL_NONE,    /* nothing to turn (a STR field, memory bytes, padding) */
	PS_TAIL_U64,     /* u64 words up to the trailer (read values, a call chain) */
	PS_TAIL_COUNTED, /* the PS_FIELD_COUNT field's number of entries of @tail_words u64 */
};

/**
 * struct ps_record_layout - one record type: its name, its class, its smallest size and
 * the fields of its body.  The one description of the record formats: the size checks of
 * the reader, ptojson --all, the byte-order turner and the mains read records through it.
 * @min_size: the bytes of its fixed fields, header included: a record shorter than that
 *            is corrupt (perf refuses it too); variable parts count as empty
 * @fields, @nfields: the body's fields in perf's order (none for perf's own records: their
 *                    bodies are described where they are decoded)
 * @alt_misc, @alt_fields, @alt_nfields: another set of fields for a record whose misc has
 *                    the bit @alt_misc (MMAP2 with a build-id in place of the inode)
 * @tail, @tail_words: what follows the fields (enum ps_record_tail)
 * @json: ptojson --all shows the fields (the others by type and size only)
 */
struct ps_record_layout {
	const char *name;
	enum ps_record_class cls;
	uint16_t min_size;
	uint8_t nfields, alt_nfields;
	const struct ps_record_field *fields;
	uint16_t alt_misc;
	const struct ps_record_field *alt_fields;
	uint8_t tail, tail_words;
	bool json;
};

/**
 * ps_record_layout() - the layout of records of @type.
 * Return: a static description; NULL for a type we do not know.
 */
const struct ps_record_layout *ps_record_layout(uint32_t type);

/**
 * ps_record_layout__fields() - the fields of @rec's body as @l describes it for @misc
 * (the alternative set when misc says so); their number in @n.
 */
const struct ps_record_field *ps_record_layout__fields(const struct ps_record_layout *l,
                                                       uint16_t misc, size_t *n);

/**
 * ps_record__get() - the number in field @name of record @rec (bytes in the order @swap
 * says), as its layout describes it.
 * Return: 0 with @v set; -1 when the type has no such numeric field or the record is too
 * short to hold it.
 */
int ps_record__get(const struct ps_record *rec, bool swap, const char *name, uint64_t *v);

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
 * struct ps_record_copy - a record's bytes kept, to be written again (header records).
 */
struct ps_record_copy {
	unsigned char *data;
	size_t len;
	uint32_t type;
	uint64_t offset; /* where the record was in its input */
};

/**
 * struct ps_record_copies - a list of record copies, in the order kept; starts zeroed.
 * @bytes: the sum of their lengths
 */
struct ps_record_copies {
	struct ps_record_copy *v;
	size_t n, cap, bytes;
};

/**
 * ps_record_copies__add() - a copy of @rec appended to @l.
 * Return: 0, or -1 when out of memory (@l as it was).
 */
int ps_record_copies__add(struct ps_record_copies *l, const struct ps_record *rec);

/**
 * ps_record_copies__release() - every copy in @l freed, and the list; @l zeroed again.
 */
void ps_record_copies__release(struct ps_record_copies *l);

/**
 * ps_feature_fields() - the fields of feature @feat's payload when it is a fixed set of
 * numbers (nrcpus, sample_time, compressed, clock_data, clockid, dir_format; offsets in
 * the payload), their number in @n.
 * Return: a static table, or NULL for a feature of another shape.
 */
const struct ps_record_field *ps_feature_fields(uint64_t feat, size_t *n);

/**
 * ps_feature_is_string() - true when feature @feat's payload is one perf string (u32
 * length, then the NUL-padded bytes): hostname, osrelease, version, arch, cpudesc, cpuid.
 */
bool ps_feature_is_string(uint64_t feat);

/**
 * ps_feature_name() - perf's name of a feature id ("hostname", "event_desc"...).
 * Return: a static string, or NULL for an id we do not know.
 */
const char *ps_feature_name(uint64_t feat);

#endif
