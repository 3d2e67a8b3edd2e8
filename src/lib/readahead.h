/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * readahead.h - a thread that reads a pipe or socket ahead of its consumer.
 *
 * Copying a pipe's bytes out of the kernel is a third of a fast stage's time.  Done by a
 * thread of its own, that copy runs on another CPU while the stage works on the bytes read
 * before; what the stage sees is unchanged: the same bytes in the same order, the end of
 * the input, a read error, and a wait that a signal or a timeout ends.  Memory is bounded
 * by the ring given at the start.
 */
#ifndef PS_READAHEAD_H
#define PS_READAHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ps_readahead;

/**
 * ps_readahead__new() - start reading @fd into a ring of @cap bytes.
 * Signals are blocked in the thread, so that they reach the consumer's waits.
 * Return: the reader, or NULL with errno set (the caller then reads @fd itself).
 */
struct ps_readahead *ps_readahead__new(int fd, size_t cap);

/**
 * ps_readahead__delete() - stop the thread and free the ring; @fd stays open.
 * Bytes read ahead and not taken are lost to whoever reads @fd next.
 */
void ps_readahead__delete(struct ps_readahead *ra);

/**
 * ps_readahead__take() - copy out up to @len bytes read so far, without waiting, and give
 * them back to the ring.
 * Return: bytes copied; 0 at the end of the input; -1 with errno EAGAIN when nothing is
 * there yet, or with the errno of the read that failed.
 */
ssize_t ps_readahead__take(struct ps_readahead *ra, void *buf, size_t len);

/**
 * ps_readahead__map() - the ring, mapped twice back to back, for reading in place.
 * @cap: set to the ring's size
 * Return: the ring, where byte i of the stream (counted from the start of the reader) is at
 * (i % cap) and again at (i % cap) + cap; NULL when the ring could not be mapped so (then
 * only ps_readahead__take() reads it).
 */
unsigned char *ps_readahead__map(const struct ps_readahead *ra, size_t *cap);

/**
 * ps_readahead__advance() - read in place: give back the bytes before stream offset @done
 * (they may then be read over) and tell how many bytes after offset @have are there.
 * The bytes from @done on stay put until a later call gives them back.  A consumer may
 * switch to ps_readahead__take(), which copies out from the first byte not given back.
 * Return: bytes after @have (at least 1); 0 at the end of the input; -1 with errno EAGAIN
 * when none is there yet, or with the errno of the read that failed.
 */
ssize_t ps_readahead__advance(struct ps_readahead *ra, uint64_t done, uint64_t have);

/**
 * ps_readahead__wait() - wait until the last ps_readahead__take() or __advance() would
 * have something more to say: bytes past what it saw, the end, or an error.
 * @timeout_ms: -1 to wait for ever
 * Return: 1 ready, 0 timed out, -1 with errno set (EINTR when a signal came).
 */
int ps_readahead__wait(struct ps_readahead *ra, int timeout_ms);

#endif
