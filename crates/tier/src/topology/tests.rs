//! Unit tests of the topology parsers.

use std::path::Path;

use super::mounts::{options_have_dax, parse_size_option, unescape_mount_field};
use super::sysfs::meminfo_value;
use super::*;

#[test]
fn cpulist_forms() {
    assert_eq!(
        parse_cpulist("0-3,8,10-11\n").unwrap(),
        vec![0, 1, 2, 3, 8, 10, 11]
    );
    assert_eq!(parse_cpulist("5").unwrap(), vec![5]);
    assert_eq!(parse_cpulist("").unwrap(), Vec::<usize>::new());
    assert_eq!(parse_cpulist("\n").unwrap(), Vec::<usize>::new());
    assert_eq!(parse_cpulist("3,1,1-2").unwrap(), vec![1, 2, 3]);
}

#[test]
fn cpulist_errors() {
    assert!(parse_cpulist("0-x").unwrap_err().contains("`x`"));
    assert!(parse_cpulist("3-1").unwrap_err().contains("backwards"));
    assert!(parse_cpulist("1,,2").is_err());
    assert!(parse_cpulist("-1").is_err());
    assert!(parse_cpulist("0-4294967295")
        .unwrap_err()
        .contains("larger"));
}

#[test]
fn cpulist_round_trip() {
    let ids = vec![0, 1, 2, 3, 8, 10, 11, 36];
    assert_eq!(format_cpulist(&ids), "0-3,8,10-11,36");
    assert_eq!(parse_cpulist(&format_cpulist(&ids)).unwrap(), ids);
    assert_eq!(format_cpulist(&[]), "");
}

#[test]
fn mount_escapes_and_sizes() {
    assert_eq!(unescape_mount_field("/mnt/my\\040disk"), "/mnt/my disk");
    assert_eq!(unescape_mount_field("/plain\\"), "/plain\\");
    assert_eq!(parse_size_option("24684084k"), Some(24684084 * 1024));
    assert_eq!(parse_size_option("4g"), Some(4 << 30));
    assert_eq!(parse_size_option("50%"), None);
    assert!(options_have_dax("rw,relatime,dax=always"));
    assert!(options_have_dax("rw,dax"));
    assert!(!options_have_dax("rw,dax=never"));
    assert!(!options_have_dax("rw,dax=inode"));
}

#[test]
fn meminfo_lines() {
    let p = Path::new("meminfo");
    let t = "Node 1 MemTotal:       67108864 kB\nNode 1 MemFree:  100 kB\n";
    assert_eq!(meminfo_value(t, "MemTotal:", p).unwrap(), Some(64 << 30));
    assert_eq!(meminfo_value(t, "MemFree:", p).unwrap(), Some(102400));
    assert_eq!(meminfo_value(t, "MemUsed:", p).unwrap(), None);
    assert!(meminfo_value("MemTotal: lots kB", "MemTotal:", p).is_err());
}

#[test]
fn human_sizes() {
    assert_eq!(human_bytes(2 << 20), "2 MiB");
    assert_eq!(human_bytes(3 << 39), "1.5 TiB");
}
