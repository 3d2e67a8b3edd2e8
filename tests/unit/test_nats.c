// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_nats.c - the parts of nats.c that need no server: the JetStream stream a subject is
 * kept in, and NATS's wildcard match (sub 'hosts.*').  tests/nats.bats runs the rest
 * against a real server.
 */
#include <string.h>

#include "lib/nats.h"
#include "unit.h"

static void test_stream_name(void)
{
	char name[PS_NATS_NAME_MAX];
	struct ps_error err = { 0 };
	char longer[300];

	CHECK(ps_nats__stream_name("hosts.web1", name, sizeof(name), &err) == 0);
	CHECK(strcmp(name, "PSTREAM-hosts_web1") == 0);
	CHECK(ps_nats__stream_name("a-b_c.D9", name, sizeof(name), &err) == 0);
	CHECK(strcmp(name, "PSTREAM-a-b_c_D9") == 0);
	/* wildcards, empty tokens, other characters, nothing, too long: refused */
	CHECK(ps_nats__stream_name("hosts.*", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("hosts.>", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("a..b", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name(".a", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("a.", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("a b", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("a/b", name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("", name, sizeof(name), &err) < 0);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	CHECK(ps_nats__stream_name(longer, name, sizeof(name), &err) < 0);
	CHECK(ps_nats__stream_name("abc", name, 8, &err) < 0); /* no room for the prefix */
}

static void test_match(void)
{
	CHECK(ps_nats__subject_match("hosts.*", "hosts.web1"));
	CHECK(!ps_nats__subject_match("hosts.*", "hosts.web1.x"));
	CHECK(!ps_nats__subject_match("hosts.*", "hosts"));
	CHECK(!ps_nats__subject_match("hosts.*", "other.web1"));
	CHECK(ps_nats__subject_match("hosts.>", "hosts.web1.x"));
	CHECK(ps_nats__subject_match("hosts.>", "hosts.web1"));
	CHECK(!ps_nats__subject_match("hosts.>", "hosts"));
	CHECK(ps_nats__subject_match(">", "a"));
	CHECK(ps_nats__subject_match("*.b.*", "a.b.c"));
	CHECK(!ps_nats__subject_match("*.b.*", "a.x.c"));
	CHECK(ps_nats__subject_match("a.b", "a.b"));
	CHECK(!ps_nats__subject_match("a.b", "a.bc"));
	CHECK(!ps_nats__subject_match("a.bc", "a.b"));
	CHECK(!ps_nats__subject_match("a", "a.b"));
	CHECK(!ps_nats__subject_match("a.b", "a"));
	CHECK(!ps_nats__subject_match("hosts*", "hostsx"));
}

int main(void)
{
	test_stream_name();
	test_match();
	return UNIT_DONE("nats");
}
