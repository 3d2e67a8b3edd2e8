# SPDX-License-Identifier: GPL-2.0-only
#
# What the scripts that run a private server for the tests share (sourced by
# clickhouse-server.sh and nats-server.sh).

# the script's name, for its messages
prog=$(basename "$0")

# server_args VERBS "$@": the command line every such script takes, VERB DIR, into $cmd and
# $dir (the usage line, exit 2, when it is not two words; VERBS as "start|stop|url")
server_args()
{
	usage="$1 DIR"
	shift
	[ $# = 2 ] || usage
	cmd=$1
	dir=$2
}

# usage: the usage line ($usage is set by server_args), exit 2
usage()
{
	echo "usage: $prog $usage" >&2
	exit 2
}

die()
{
	echo "$prog: $*" >&2
	exit 1
}

# a port on 127.0.0.1 where nothing listens
free_port()
{
	local p i
	for i in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		# nothing listening there (bash's /dev/tcp: a refused connect is a free port)
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# pid_alive PIDFILE: the process PIDFILE names runs
pid_alive()
{
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# stop_pid PIDFILE TENTHS: stop the process PIDFILE names, waiting up to TENTHS tenths of a
# second before SIGKILL; PIDFILE is removed
stop_pid()
{
	local pidfile=$1 tenths=$2 pid i
	pid=$(cat "$pidfile" 2>/dev/null) || return 0
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || {
		rm -f "$pidfile"
		return 0
	}
	for i in $(seq "$tenths"); do
		kill -0 "$pid" 2>/dev/null || {
			rm -f "$pidfile"
			return 0
		}
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	sleep 0.2
	rm -f "$pidfile"
}
