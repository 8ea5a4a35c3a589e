//! The macOS sandbox of the Bash tool's commands: a Seatbelt profile (SBPL) run through
//! `/usr/bin/sandbox-exec -p PROFILE`.
//!
//! The profile denies by default, then allows: processes and signals inside the sandbox,
//! system information, user lookups, reads everywhere, writes under the writable roots and to
//! a few devices, the network when asked, and last denies reading and writing the
//! `deny_read` paths (in SBPL the last matching rule wins). Building it is a pure function, so
//! it is tested on every platform; running it is tested on macOS.

use std::path::{Path, PathBuf};

/// The one `sandbox-exec` used (never one found through `PATH`).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// What a profile allows.
#[derive(Debug, Clone, Copy)]
pub struct SeatbeltPolicy<'a> {
    /// Writable roots, absolute with symlinks resolved (Seatbelt matches resolved paths):
    /// `cwd`, the session's temp dir, `writable`. Empty = nothing but the devices.
    pub writable: &'a [PathBuf],
    /// Paths neither read nor written (absolute, resolved).
    pub deny_read: &'a [PathBuf],
    /// TCP, UDP and Unix-domain sockets allowed.
    pub network: bool,
}

/// The rules every profile starts with: deny by default; processes, system information, user
/// lookups and pseudo-terminals.
const BASE: &[&str] = &[
    "(version 1)",
    "(deny default)",
    "; processes: the command and its children, which inherit this profile",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "; system information (not kern.procargs2: other processes' arguments and environment),",
    "; user and group lookups, preferences, POSIX semaphores",
    "(allow sysctl-read (sysctl-name-prefix \"hw.\") (sysctl-name-prefix \"machdep.cpu.\") \
     (sysctl-name-prefix \"kern.os\") (sysctl-name \"kern.version\") \
     (sysctl-name \"kern.hostname\") (sysctl-name \"kern.argmax\") \
     (sysctl-name \"kern.maxproc\") (sysctl-name \"kern.maxfilesperproc\") \
     (sysctl-name \"kern.usrstack64\") (sysctl-name \"kern.secure_kernel\") \
     (sysctl-name \"kern.boottime\") (sysctl-name-prefix \"kern.proc.pid.\") \
     (sysctl-name-prefix \"kern.proc.pgrp.\") (sysctl-name \"sysctl.proc_cputype\") \
     (sysctl-name \"vm.loadavg\") (sysctl-name-prefix \"net.routetable.\"))",
    "(allow user-preference-read)",
    "(allow ipc-posix-sem)",
    "(allow ipc-posix-shm-read* (ipc-posix-name-prefix \"apple.cfprefs.\"))",
    "(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") \
     (global-name \"com.apple.system.opendirectoryd.membership\") \
     (global-name \"com.apple.system.notification_center\") \
     (global-name \"com.apple.cfprefsd.daemon\") (global-name \"com.apple.cfprefsd.agent\"))",
    "; pseudo-terminals (openpty)",
    "(allow pseudo-tty)",
    "(allow file-write-data file-ioctl (literal \"/dev/ptmx\"))",
    "(allow file-write-data file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))",
    "; reads: everywhere but sandbox.deny_read (denied at the end)",
    "(allow file-read*)",
    "(allow file-map-executable)",
];

/// Devices every command may write, whatever the mode (`/dev/fd`: its own descriptors).
const DEVICES: &str = "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") \
                       (literal \"/dev/full\") (literal \"/dev/tty\") (subpath \"/dev/fd\"))";

/// With `network`: every socket, and the services name resolution and TLS need.
const NETWORK: &[&str] = &[
    "(allow network*)",
    "(allow system-socket)",
    "(allow mach-lookup (global-name \"com.apple.SystemConfiguration.DNSConfiguration\") \
     (global-name \"com.apple.SystemConfiguration.configd\") \
     (global-name \"com.apple.dnssd.service\") (global-name \"com.apple.networkd\") \
     (global-name \"com.apple.trustd\") (global-name \"com.apple.trustd.agent\") \
     (global-name \"com.apple.SecurityServer\") (global-name \"com.apple.ocspd\"))",
];

/// `s` as an SBPL string literal: `"` and `\` escaped.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The SBPL profile of `p`, one rule per line.
///
/// SBPL strings are text: a writable root that is not UTF-8 gets no rule (it stays read-only),
/// and a denied path that is not UTF-8 is denied through its nearest UTF-8 ancestor.
pub fn profile(p: &SeatbeltPolicy) -> String {
    let mut lines: Vec<String> = BASE.iter().copied().map(String::from).collect();
    lines.push("; writes: the writable roots and a few devices".into());
    for root in p.writable {
        if let Some(root) = root.to_str() {
            lines.push(format!("(allow file-write* (subpath {}))", quote(root)));
        }
    }
    lines.push(DEVICES.into());
    if p.network {
        lines.push("; network: allowed (sandbox.network)".into());
        lines.extend(NETWORK.iter().copied().map(String::from));
    } else {
        lines.push("; network: none (denied by default)".into());
    }
    if !p.deny_read.is_empty() {
        lines.push("; sandbox.deny_read: neither read nor written".into());
    }
    for denied in p.deny_read {
        if let Some(path) = denied.ancestors().find_map(Path::to_str) {
            lines.push(format!(
                "(deny file-read* file-write* (subpath {}))",
                quote(path)
            ));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The argv running `shell_command` with `sh -c` under `profile`:
/// `/usr/bin/sandbox-exec -p PROFILE -- sh -c COMMAND`.
pub fn command_args(profile: &str, shell_command: &str) -> Vec<String> {
    [SANDBOX_EXEC, "-p", profile, "--", "sh", "-c", shell_command]
        .into_iter()
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    /// The lines from `(allow file-read*)` on: the part that depends on the policy.
    fn tail(profile: &str) -> Vec<&str> {
        let lines: Vec<&str> = profile.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == "(allow file-read*)")
            .unwrap();
        lines[at..].to_vec()
    }

    /// Parentheses balance outside string and regex literals, on every line.
    fn balanced(line: &str) -> bool {
        let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
        for c in line.chars() {
            match (in_str, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (true, false, '"') => in_str = false,
                (false, _, '"') => in_str = true,
                (false, _, '(') => depth += 1,
                (false, _, ')') => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        depth == 0 && !in_str
    }

    const DEVICE_LINE: &str = "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") \
                               (literal \"/dev/full\") (literal \"/dev/tty\") (subpath \"/dev/fd\"))";

    #[test]
    fn workspace_write_without_network() {
        let writable = paths(&["/work/app"]);
        let deny = paths(&["/Users/me/.ssh"]);
        let p = profile(&SeatbeltPolicy {
            writable: &writable,
            deny_read: &deny,
            network: false,
        });
        assert!(p.starts_with("(version 1)\n(deny default)\n"), "{p}");
        assert!(p.ends_with('\n'));
        assert_eq!(
            tail(&p),
            [
                "(allow file-read*)",
                "(allow file-map-executable)",
                "; writes: the writable roots and a few devices",
                "(allow file-write* (subpath \"/work/app\"))",
                DEVICE_LINE,
                "; network: none (denied by default)",
                "; sandbox.deny_read: neither read nor written",
                "(deny file-read* file-write* (subpath \"/Users/me/.ssh\"))",
            ]
        );
        assert!(
            !p.contains("network*") && !p.contains("system-socket"),
            "{p}"
        );
        assert!(p.lines().all(balanced), "{p}");
        // sysctl reads are listed: never kern.procargs2 (another process's environment).
        let rules = || p.lines().filter(|l| !l.starts_with(';'));
        assert!(!rules().any(|l| l == "(allow sysctl-read)" || l.contains("procargs")));
    }

    #[test]
    fn network_on_adds_sockets_and_name_resolution() {
        let writable = paths(&["/work/app"]);
        let deny = paths(&["/Users/me/.ssh"]);
        let p = profile(&SeatbeltPolicy {
            writable: &writable,
            deny_read: &deny,
            network: true,
        });
        let t = tail(&p);
        assert_eq!(
            t[..6],
            [
                "(allow file-read*)",
                "(allow file-map-executable)",
                "; writes: the writable roots and a few devices",
                "(allow file-write* (subpath \"/work/app\"))",
                DEVICE_LINE,
                "; network: allowed (sandbox.network)",
            ]
        );
        assert_eq!(t[6..8], ["(allow network*)", "(allow system-socket)"]);
        assert!(
            t[8].starts_with("(allow mach-lookup (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")"),
            "{}",
            t[8]
        );
        // The denial stays last, so it wins over every allow before it.
        assert_eq!(
            t[9..],
            [
                "; sandbox.deny_read: neither read nor written",
                "(deny file-read* file-write* (subpath \"/Users/me/.ssh\"))",
            ]
        );
        assert!(p.lines().all(balanced), "{p}");
    }

    #[test]
    fn read_only_writes_nothing_but_the_devices() {
        let p = profile(&SeatbeltPolicy {
            writable: &[],
            deny_read: &[],
            network: false,
        });
        assert_eq!(
            tail(&p),
            [
                "(allow file-read*)",
                "(allow file-map-executable)",
                "; writes: the writable roots and a few devices",
                DEVICE_LINE,
                "; network: none (denied by default)",
            ]
        );
        assert!(!p.contains("(allow file-write*"), "{p}");
    }

    #[test]
    fn quotes_and_backslashes_in_paths_are_escaped() {
        let writable = paths(&["/work/a \"b\") (allow default"]);
        let deny = paths(&["/x\\y\""]);
        let p = profile(&SeatbeltPolicy {
            writable: &writable,
            deny_read: &deny,
            network: false,
        });
        assert!(
            p.lines()
                .any(|l| l == r#"(allow file-write* (subpath "/work/a \"b\") (allow default"))"#),
            "{p}"
        );
        assert!(
            p.lines()
                .any(|l| l == r#"(deny file-read* file-write* (subpath "/x\\y\""))"#),
            "{p}"
        );
        assert!(!p.lines().any(|l| l == "(allow default)"), "{p}");
        assert!(p.lines().all(balanced), "{p}");
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_denied_through_its_parent_and_never_made_writable() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new("/data").join(OsStr::from_bytes(b"se\xffcret"));
        let writable = vec![odd.clone()];
        let deny = vec![odd];
        let p = profile(&SeatbeltPolicy {
            writable: &writable,
            deny_read: &deny,
            network: false,
        });
        assert!(!p.contains("(allow file-write* (subpath"), "{p}");
        assert!(
            p.lines()
                .any(|l| l == "(deny file-read* file-write* (subpath \"/data\"))"),
            "{p}"
        );
    }

    #[test]
    fn command_args_run_sh_under_sandbox_exec() {
        assert_eq!(
            command_args("(version 1)", "echo 'a b' > out"),
            [
                "/usr/bin/sandbox-exec",
                "-p",
                "(version 1)",
                "--",
                "sh",
                "-c",
                "echo 'a b' > out",
            ]
        );
    }

    /// The profile under the real `sandbox-exec` (the release workflow's macOS job): the
    /// workspace is writable, a directory this user may write outside it is not, a denied file
    /// cannot be read, and TCP to a local listener needs `network`.
    #[cfg(target_os = "macos")]
    #[test]
    fn sandbox_exec_enforces_the_profile() {
        use std::process::{Command, Output};

        let dir = tempfile::tempdir().unwrap();
        // Seatbelt matches resolved paths (/var is /private/var).
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (ws, outside, secret) = (root.join("ws"), root.join("outside"), root.join("secret"));
        for d in [&ws, &outside, &secret] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(secret.join("key"), "hunter2").unwrap();
        // Without the sandbox this user may write there: a refusal below is the profile's.
        std::fs::write(outside.join("control"), "x").unwrap();
        let writable = vec![ws.clone()];
        let deny = vec![secret.clone()];
        let run = |network: bool, command: &str| -> Output {
            let sbpl = profile(&SeatbeltPolicy {
                writable: &writable,
                deny_read: &deny,
                network,
            });
            let argv = command_args(&sbpl, command);
            Command::new(&argv[0])
                .args(&argv[1..])
                .current_dir(&ws)
                .output()
                .unwrap()
        };
        let show = |o: &Output| {
            format!(
                "status {:?}, stdout {:?}, stderr {:?}",
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        };

        let o = run(false, "echo hello");
        assert!(o.status.success(), "the profile does not run: {}", show(&o));
        assert_eq!(o.stdout, b"hello\n");

        let o = run(false, "echo x > inside && cat inside && echo y > /dev/null");
        assert!(o.status.success(), "workspace write: {}", show(&o));
        assert!(ws.join("inside").exists());

        let escape = outside.join("escape");
        let o = run(false, &format!("echo x > '{}'", escape.display()));
        assert!(
            !o.status.success(),
            "a write outside the workspace ran: {}",
            show(&o)
        );
        assert!(!escape.exists());

        let etc = Path::new("/etc/robota-escape");
        let o = run(false, "echo x > /etc/robota-escape");
        let escaped = etc.exists();
        if escaped {
            let _ = std::fs::remove_file(etc);
        }
        assert!(!o.status.success() && !escaped, "/etc write: {}", show(&o));

        let o = run(false, &format!("cat '{}'", secret.join("key").display()));
        assert!(!o.status.success(), "deny_read: {}", show(&o));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("hunter2"));

        // Another process's environment (KERN_PROCARGS2) stays hidden: `ps -E` shows it
        // outside the sandbox, not inside.
        let mut probe = Command::new("/bin/sleep")
            .arg("30")
            .env("ROBOTA_SEATBELT_PROBE", "probe-value-7194")
            .spawn()
            .unwrap();
        let ps = format!("/bin/ps -E -ww -o command= -p {}", probe.id());
        let control = Command::new("/bin/sh").args(["-c", &ps]).output().unwrap();
        let o = run(false, &ps);
        let _ = probe.kill();
        let _ = probe.wait();
        if String::from_utf8_lossy(&control.stdout).contains("probe-value-7194") {
            let seen = String::from_utf8_lossy(&o.stdout).contains("probe-value-7194");
            assert!(!seen, "another process's environment: {}", show(&o));
        }

        if Path::new("/usr/bin/nc").exists() {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let nc = format!("/usr/bin/nc -z -n -w 5 127.0.0.1 {port}");
            let o = run(false, &nc);
            assert!(!o.status.success(), "TCP without network: {}", show(&o));
            let o = run(true, &nc);
            assert!(o.status.success(), "TCP with network: {}", show(&o));
        }
    }
}
