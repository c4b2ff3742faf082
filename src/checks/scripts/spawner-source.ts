/**
 * The source of the script spawner: a small Perl program (perl-base is
 * Essential on Debian; Perl is on nearly every other Unix) that the agent
 * starts once and that forks the scripts for it. Why Perl and not Node: a
 * fork copies the page tables of the process that forks, so its cost grows
 * with that process's memory; Node's child_process forks the whole agent on
 * its main thread (libuv 1.46 on Linux has no vfork or posix_spawn path), a
 * Perl interpreter of a few MB forks for a fraction of that and does it on
 * the other core. See spawner.ts for the Node side and the README.
 *
 * Protocol (stdin: requests, stdout: replies, each a frame of a 4-byte
 * big-endian length and a body whose fields are separated by NUL; no field
 * before the output bytes holds a NUL):
 *   R id timeoutMs maxBytes cwd argc argv... env...   run a script
 *   K id                                              kill its process group (abort)
 *   S id pid                                          (reply) started
 *   D id code signal flags errno outLen out err       (reply) done; code or signal
 *     empty when not applicable; flags: t timed out, a aborted, x truncated;
 *     errno set when it never started (fork, pipe, chdir or exec failed)
 *
 * The same guarantees as runner.ts: each script runs in its own process
 * group with stdin from /dev/null, no shell (exec of the argument list; a
 * bare name is looked up in the PATH of the script's environment); at its
 * deadline or on K the group gets SIGKILL; once the script exits the rest
 * of its group is killed too and its pipes are read for at most 1 s more;
 * output beyond maxBytes per stream is read and dropped. On end of stdin
 * (the agent is gone) every running group is killed and the spawner exits.
 * Fork, exec and pipe failures are answered per run; the spawner only dies
 * on a broken protocol, which the agent sees as its exit.
 */
export const SPAWNER_PERL = String.raw`
use strict;
use warnings;
use POSIX ();

my $TICKS = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
sub now_ms { return (POSIX::times())[0] * 1000 / $TICKS; }
my $PIPE_GRACE_MS = 1000;
# A script that closed its pipes without exiting is polled this long at a short interval.
my $EOF_POLL_MS = 100;

open(my $NULL, '<', '/dev/null') or die "script spawner: /dev/null: $!\n";
my $NULL_FD = fileno $NULL;
my $EMPTY_MASK = POSIX::SigSet->new();
my %runs;       # id -> run
my %by_pid;     # pid -> run, until reaped
my %by_fd;      # fileno -> [run, 'out' | 'err']
my %lingering;  # id -> run: exited, its pipes still held open by what it left behind
my %eof_wait;   # id -> run: its pipes closed, not reaped yet
my $next_deadline;  # earliest deadline of a running script (ms), or undef
my $rin = '';   # select's read set: stdin and every open pipe
vec($rin, 0, 1) = 1;
my $inbuf = '';
my $outbuf = '';
my $env_now = '';

$SIG{CHLD} = sub { };  # only to interrupt select
$SIG{PIPE} = 'IGNORE';
binmode STDIN;
binmode STDOUT;

# Replies collect here and go out in one write before the next wait (flush).
sub reply {
  my ($body) = @_;
  $outbuf .= pack('N', length $body) . $body;
}

sub flush {
  while (length $outbuf) {
    my $n = syswrite(STDOUT, $outbuf);
    if (!defined $n) { next if $!{EINTR}; kill_all(); POSIX::_exit(3); }
    substr($outbuf, 0, $n) = '';
  }
}

sub done_early {
  my ($id, $errno) = @_;
  reply(join("\0", 'D', $id, '', '', '', $errno, 0) . "\0");
}

# The environment of the scripts: set here, where it stays for the next
# runs, rather than in each child (every page a child writes is copied).
sub set_env {
  my ($env) = @_;
  my $joined = join("\0", @$env);
  return if $joined eq $env_now;
  $env_now = $joined;
  %ENV = ();
  for my $kv (@$env) {
    my $i = index($kv, '=');
    $ENV{substr($kv, 0, $i)} = substr($kv, $i + 1) if $i > 0;
  }
}

sub start_run {
  my ($id, $timeout_ms, $max, $cwd, $argv, $env) = @_;
  my ($or, $ow, $er, $ew, $sr, $sw);
  pipe($or, $ow) or return done_early($id, $! + 0);
  pipe($er, $ew) or do { my $e = $! + 0; close $_ for $or, $ow; return done_early($id, $e); };
  pipe($sr, $sw) or do { my $e = $! + 0; close $_ for $or, $ow, $er, $ew; return done_early($id, $e); };
  set_env($env);
  my $pid = fork();
  if (!defined $pid) {
    my $e = $! + 0;
    close $_ for $or, $ow, $er, $ew, $sr, $sw;
    return done_early($id, $e);
  }
  if ($pid == 0) {
    # The child: own group, default signals, /dev/null in, the pipes out, then exec (no shell).
    $SIG{CHLD} = 'DEFAULT';
    $SIG{PIPE} = 'DEFAULT';
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), $EMPTY_MASK);
    POSIX::setpgid(0, 0);
    if (defined POSIX::dup2($NULL_FD, 0) && defined POSIX::dup2(fileno($ow), 1) && defined POSIX::dup2(fileno($ew), 2)
        && (!length $cwd || chdir($cwd))) {
      no warnings 'exec';
      exec { $argv->[0] } @$argv;
    }
    syswrite($sw, pack('N', ($! + 0) || 5));
    POSIX::_exit(127);
  }
  POSIX::setpgid($pid, $pid);
  close $_ for $ow, $ew, $sw;
  # The status pipe closes at the exec (close-on-exec), or brings the errno of what failed.
  my $status = '';
  while (1) {
    my $n = sysread($sr, $status, 4, length $status);
    last if defined $n && ($n == 0 || length $status >= 4);
    last if !defined $n && !$!{EINTR};
  }
  close $sr;
  if (length $status >= 4) {
    close $_ for $or, $er;
    waitpid($pid, 0);
    return done_early($id, unpack('N', $status));
  }
  my $run = { id => $id, pid => $pid, max => $max, out => '', err => '', open => 2,
              deadline => now_ms() + $timeout_ms, flags => '', fh => {} };
  for ([$or, 'out'], [$er, 'err']) {
    my ($fh, $key) = @$_;
    $run->{fh}{$key} = $fh;
    $by_fd{fileno $fh} = [$run, $key];
    vec($rin, fileno $fh, 1) = 1;
  }
  $next_deadline = $run->{deadline} if !defined $next_deadline || $run->{deadline} < $next_deadline;
  $runs{$id} = $run;
  $by_pid{$pid} = $run;
  reply(join("\0", 'S', $id, $pid));
}

sub kill_group {
  my ($run) = @_;
  kill('KILL', -$run->{pid});
}

sub kill_all {
  kill_group($_) for values %runs;
}

sub close_stream {
  my ($run, $key) = @_;
  my $fh = delete $run->{fh}{$key} or return;
  vec($rin, fileno $fh, 1) = 0;
  delete $by_fd{fileno $fh};
  close $fh;
  return if --$run->{open} > 0;
  if (defined $run->{status}) { finish($run); return; }
  $run->{eof_at} = now_ms();
  $eof_wait{$run->{id}} = $run;
}

sub read_stream {
  my ($run, $key) = @_;
  my $n = sysread($run->{fh}{$key}, my $chunk, 65536);
  if (!defined $n) { return if $!{EINTR} || $!{EAGAIN}; }
  if (!$n) { close_stream($run, $key); return; }
  my $room = $run->{max} - length $run->{$key};
  if ($room < $n) {
    $run->{flags} .= 'x' unless $run->{flags} =~ /x/;
    $chunk = substr($chunk, 0, $room > 0 ? $room : 0);
  }
  $run->{$key} .= $chunk;
}

sub finish {
  my ($run) = @_;
  return if $run->{finished}++;
  delete $lingering{$run->{id}};
  delete $eof_wait{$run->{id}};
  close_stream($run, $_) for qw(out err);
  my $st = $run->{status};
  my $code = POSIX::WIFEXITED($st) ? POSIX::WEXITSTATUS($st) : '';
  my $sig = POSIX::WIFSIGNALED($st) ? POSIX::WTERMSIG($st) : '';
  reply(join("\0", 'D', $run->{id}, $code, $sig, $run->{flags}, '', length $run->{out}) . "\0" . $run->{out} . $run->{err});
  delete $runs{$run->{id}};
}

sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $run = delete $by_pid{$pid} or next;
    $run->{status} = $?;
    delete $eof_wait{$run->{id}};
    # The script is done: what it left in its group dies too, which also closes the pipes.
    kill_group($run);
    if ($run->{open} == 0) { finish($run); next; }
    $run->{reaped_at} = now_ms();
    $lingering{$run->{id}} = $run;
  }
}

# Kills the groups past their deadline; returns the next deadline, or undef.
sub check_deadlines {
  my ($now) = @_;
  my $next;
  for my $run (values %runs) {
    next if defined $run->{status} || $run->{flags} =~ /t/;
    if ($now >= $run->{deadline}) {
      $run->{flags} .= 't';
      kill_group($run);
      next;
    }
    $next = $run->{deadline} if !defined $next || $run->{deadline} < $next;
  }
  return $next;
}

sub handle {
  my ($body) = @_;
  my @f = split(/\0/, $body, -1);
  my $type = shift @f;
  if ($type eq 'R') {
    my ($id, $timeout_ms, $max, $cwd, $argc) = splice(@f, 0, 5);
    my @argv = splice(@f, 0, $argc);
    start_run($id, $timeout_ms, $max, $cwd, \@argv, \@f);
  } elsif ($type eq 'K') {
    my $run = $runs{$f[0]};
    if ($run && !defined $run->{status}) {
      $run->{flags} .= 'a' unless $run->{flags} =~ /a/;
      kill_group($run);
    }
  } else {
    die "script spawner: unknown request type\n";
  }
}

sub _min { my ($a, $b) = @_; return defined $a && $a < $b ? $a : $b; }

# Each round: reap, enforce deadlines, send the replies, wait for input
# from the agent or a script. Work per round follows what happened, not
# the number of scripts running (only a passed deadline looks at all).
while (1) {
  reap();
  my $now = now_ms();
  $next_deadline = check_deadlines($now) if defined $next_deadline && $now >= $next_deadline;
  my $wait;  # seconds; undef: until something happens
  $wait = ($next_deadline - $now) / 1000 if defined $next_deadline;
  for my $run (values %lingering) {
    if ($now - $run->{reaped_at} >= $PIPE_GRACE_MS) { finish($run); next; }
    $wait = _min($wait, ($run->{reaped_at} + $PIPE_GRACE_MS - $now) / 1000);
  }
  for my $run (values %eof_wait) {
    # Pipes closed, not reaped: its SIGCHLD may come just before select, which it would not interrupt.
    if ($now - $run->{eof_at} < $EOF_POLL_MS) { $wait = _min($wait, 0.002); }
    else { delete $eof_wait{$run->{id}}; }
  }
  # The same race for scripts whose pipes are held open by what they started.
  $wait = _min($wait, 0.2) if %by_pid;
  flush();
  my $n = select(my $rout = $rin, undef, undef, $wait);
  if ($n < 0) { next if $!{EINTR}; die "script spawner: select: $!\n"; }
  next if $n == 0;
  for my $fd (keys %by_fd) {
    next unless vec($rout, $fd, 1);
    my $entry = $by_fd{$fd} or next;
    read_stream(@$entry);
  }
  if (vec($rout, 0, 1)) {
    my $got = sysread(STDIN, $inbuf, 65536, length $inbuf);
    if (defined $got && $got == 0) { kill_all(); exit 0; }
    if (!defined $got) { next if $!{EINTR}; kill_all(); exit 2; }
    while (length $inbuf >= 4) {
      my $len = unpack('N', $inbuf);
      last if length $inbuf < 4 + $len;
      my $body = substr($inbuf, 4, $len);
      substr($inbuf, 0, 4 + $len) = '';
      handle($body);
    }
  }
}
`;
