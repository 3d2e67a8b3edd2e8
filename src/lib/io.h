/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io.h - file-descriptor I/O with the stream contract's EINTR policy.
 */
#ifndef PS_IO_H
#define PS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * ps_read_some() - one read(2) of up to @len bytes, retried on EINTR unless ps_stop or
 * ps_interrupted is set (signals.h).
 * Return: bytes read, 0 at end of file, -1 with errno set (EINTR when stopped or
 * interrupted).
 */
ssize_t ps_read_some(int fd, void *buf, size_t len);

/**
 * ps_write_full() - write all @len bytes, looping over short writes and EINTR, unless a stop
 * was requested (ps_stop): a write blocked on a stalled reader then ends at once.
 * Return: 0, or -1 with errno set (EPIPE when the reader went away, EINTR when stopped).
 */
int ps_write_full(int fd, const void *buf, size_t len);

/**
 * ps_write_upto() - ps_write_full() that also tells how much was written.
 * @done: bytes written, all of @len on success
 * Return: 0, or -1 with errno set.
 */
int ps_write_upto(int fd, const void *buf, size_t len, size_t *done);

/**
 * ps_pread_full() - read exactly @len bytes at @off.
 * Return: bytes read (less than @len only at end of file), or -1 with errno set.
 */
ssize_t ps_pread_full(int fd, void *buf, size_t len, off_t off);

/**
 * ps_fd_wait() - wait until @fd is readable.
 * @timeout_ms: 0 to poll, -1 to wait for ever
 * Return: 1 readable (or hung up), 0 timed out, -1 on error (EINTR included).
 */
int ps_fd_wait(int fd, int timeout_ms);

#endif
