/**
 * NSClient++'s default query aliases. CheckExternalScripts in NSClient++
 * adds them when its alias section defines no alias at all, and not
 * otherwise. One alias in the file and none of these exist. The module
 * does the same here (src/modules/check-external-scripts/).
 *
 * Written for the queries here: a file is `name` (NSClient++: `filename`)
 * and `max-dir-depth` is `max-depth`. NSClient++'s detail syntax
 * `${filename] ${size}` has a mistyped bracket; here it is `${name} ${size}`.
 * The defaults whose query does not exist here are left out and listed in
 * OMITTED_DEFAULT_ALIASES: alias_top_memory_users and
 * alias_top_memory_users_ex (filter_perf), alias_event_log (check_eventlog),
 * alias_process_hung (is_hung, a Windows window state), and
 * alias_sched_all, alias_sched_long and alias_sched_task (check_tasksched).
 */
export const DEFAULT_ALIASES: Readonly<Record<string, string>> = {
  alias_cpu: 'check_cpu',
  alias_cpu_ex: 'check_cpu "warn=load > $ARG1$" "crit=load > $ARG2$" time=5m time=1m time=30s',
  alias_mem: 'check_memory',
  alias_up: 'check_uptime',
  alias_disk: 'check_drivesize',
  alias_disk_loose: 'check_drivesize',
  alias_volumes: 'check_drivesize',
  alias_volumes_loose: 'check_drivesize',
  alias_service: 'check_service',
  alias_service_ex: 'check_service "exclude=Net Driver HPZ12" "exclude=Pml Driver HPZ12" exclude=stisvc',
  alias_process: `check_process "process=$ARG1$" "crit=state != 'started'"`,
  alias_process_stopped: `check_process "process=$ARG1$" "crit=state != 'stopped'"`,
  alias_process_count: 'check_process "process=$ARG1$" "warn=count > $ARG2$" "crit=count > $ARG3$"',
  alias_file_size:
    'check_files "path=$ARG1$" "crit=size > $ARG2$" "top-syntax=${list}" "detail-syntax=${name} ${size}" max-depth=10',
  alias_file_age:
    'check_files "path=$ARG1$" "crit=written > $ARG2$" "top-syntax=${list}" "detail-syntax=${name} ${written}" max-depth=10',
};

/** NSClient++ defaults that are not defined here, with the reason. */
export const OMITTED_DEFAULT_ALIASES: Readonly<Record<string, string>> = {
  alias_top_memory_users: 'filter_perf does not exist here',
  alias_top_memory_users_ex: 'filter_perf does not exist here',
  alias_event_log: 'check_eventlog (Windows event log) does not exist here',
  alias_process_hung: 'is_hung (a hung Windows window) has no counterpart here',
  alias_sched_all: 'check_tasksched (Windows task scheduler) does not exist here',
  alias_sched_long: 'check_tasksched (Windows task scheduler) does not exist here',
  alias_sched_task: 'check_tasksched (Windows task scheduler) does not exist here',
};
