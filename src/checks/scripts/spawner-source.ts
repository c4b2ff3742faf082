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

my %runs;     # id -> run
my %by_pid;   # pid -> run
my %by_fd;    # fileno -> [run, 'out' | 'err']
my $inbuf = '';

$SIG{CHLD} = sub { };  # only to interrupt select
$SIG{PIPE} = 'IGNORE';
binmode STDIN;
binmode STDOUT;

sub reply {
  my ($body) = @_;
  my $frame = pack('N', length $body) . $body;
  while (length $frame) {
    my $n = syswrite(STDOUT, $frame);
    if (!defined $n) { next if $!{EINTR}; kill_all(); POSIX::_exit(3); }
    substr($frame, 0, $n) = '';
  }
}

sub done_early {
  my ($id, $errno) = @_;
  reply(join("\0", 'D', $id, '', '', '', $errno, 0) . "\0");
}

sub start_run {
  my ($id, $timeout_ms, $max, $cwd, $argv, $env) = @_;
  my ($or, $ow, $er, $ew, $sr, $sw);
  pipe($or, $ow) or return done_early($id, $! + 0);
  pipe($er, $ew) or do { my $e = $! + 0; close $_ for $or, $ow; return done_early($id, $e); };
  pipe($sr, $sw) or do { my $e = $! + 0; close $_ for $or, $ow, $er, $ew; return done_early($id, $e); };
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
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new());
    POSIX::setpgid(0, 0);
    my $fail = sub { my $e = ($! + 0) || 5; syswrite($sw, pack('N', $e)); POSIX::_exit(127); };
    open(STDIN, '<', '/dev/null') or $fail->();
    POSIX::dup2(fileno($ow), 1) // $fail->();
    POSIX::dup2(fileno($ew), 2) // $fail->();
    if (length $cwd) { chdir($cwd) or $fail->(); }
    %ENV = ();
    for my $kv (@$env) {
      my $i = index($kv, '=');
      $ENV{substr($kv, 0, $i)} = substr($kv, $i + 1) if $i > 0;
    }
    { no warnings 'exec'; exec { $argv->[0] } @$argv; }
    $fail->();
  }
  POSIX::setpgid($pid, $pid);
  close $_ for $ow, $ew, $sw;
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
  }
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
  delete $by_fd{fileno $fh};
  close $fh;
  $run->{open}--;
  $run->{eof_at} = now_ms() if $run->{open} == 0;
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
  close_stream($run, $_) for qw(out err);
  my $st = $run->{status};
  my $code = POSIX::WIFEXITED($st) ? POSIX::WEXITSTATUS($st) : '';
  my $sig = POSIX::WIFSIGNALED($st) ? POSIX::WTERMSIG($st) : '';
  reply(join("\0", 'D', $run->{id}, $code, $sig, $run->{flags}, '', length $run->{out}) . "\0" . $run->{out} . $run->{err});
  delete $runs{$run->{id}};
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

while (1) {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $run = delete $by_pid{$pid} or next;
    $run->{status} = $?;
    $run->{reaped_at} = now_ms();
    # The script is done: what it left in its group dies too, which also closes the pipes.
    kill_group($run);
  }
  my $now = now_ms();
  my $wait;  # seconds; undef: until something happens
  for my $run (values %runs) {
    if (defined $run->{status}) {
      if ($run->{open} == 0 || $now - $run->{reaped_at} >= $PIPE_GRACE_MS) { finish($run); next; }
      $wait = _min($wait, ($run->{reaped_at} + $PIPE_GRACE_MS - $now) / 1000);
      next;
    }
    if ($now >= $run->{deadline} && $run->{flags} !~ /t/) {
      $run->{flags} .= 't';
      kill_group($run);
    }
    # A SIGCHLD that came just before select would not interrupt it: look again soon.
    $wait = _min($wait, ($run->{flags} =~ /t/ || $run->{deadline} - $now > 200) ? 0.2 : ($run->{deadline} - $now) / 1000);
    $wait = _min($wait, 0.002) if $run->{open} == 0 && $now - $run->{eof_at} < $EOF_POLL_MS;
  }
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, $_, 1) = 1 for keys %by_fd;
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

sub _min { my ($a, $b) = @_; return defined $a && $a < $b ? $a : $b; }
`;
