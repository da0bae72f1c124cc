//! Search benchmark over generated library roots of 10,000 and 100,000 documents (mixed Chinese and
//! English prose with technical tokens): full index time, incremental update latency, start-up
//! (open + first query), query latency p50/p99 with snippets, and `rg -i -l` over the same files.
//!
//! Run: `cargo bench --bench search` (roots are generated once into `target/bench-search/`).
//! `LORE_BENCH_SIZES=10000` limits the sizes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use lore::search::SearchIndex;

const EN: &[&str] = &[
    "driver",
    "kernel",
    "module",
    "version",
    "mismatch",
    "reboot",
    "node",
    "training",
    "job",
    "memory",
    "allocation",
    "failed",
    "timeout",
    "collective",
    "network",
    "interface",
    "device",
    "container",
    "runtime",
    "firmware",
    "power",
    "thermal",
    "throttle",
    "link",
    "error",
    "recovery",
    "reset",
    "drain",
    "cluster",
    "scheduler",
    "operator",
    "upgrade",
    "rollback",
    "package",
    "library",
    "fabric",
    "switch",
    "bandwidth",
    "latency",
    "checkpoint",
    "storage",
    "filesystem",
    "mount",
    "process",
    "signal",
    "cgroup",
    "pinned",
    "buffer",
    "queue",
    "watchdog",
    "health",
    "monitor",
    "alert",
    "incident",
    "mitigation",
];
const ZH: &[&str] = &[
    "驱动",
    "版本",
    "不匹配",
    "掉卡",
    "显存",
    "不足",
    "降频",
    "温度",
    "过高",
    "重启",
    "节点",
    "训练",
    "任务",
    "超时",
    "网络",
    "网卡",
    "容器",
    "运行时",
    "固件",
    "电源",
    "链路",
    "错误",
    "恢复",
    "排查",
    "集群",
    "调度",
    "升级",
    "回滚",
    "内核",
    "模块",
    "加载",
    "失败",
    "共享内存",
    "进程",
    "信号",
    "告警",
    "监控",
    "故障",
    "现象",
    "原因",
    "处理",
    "步骤",
    "风险",
    "硬件",
    "更换",
    "检查",
    "日志",
    "命令",
    "输出",
    "正常",
    "异常",
];
const TECH: &[&str] = &[
    "nvidia-smi",
    "Xid 79",
    "Xid 48",
    "Xid 119",
    "NVRM:",
    "/dev/nvidia-uvm",
    "nvidia_uvm",
    "NCCL_SOCKET_IFNAME",
    "CUDA_VISIBLE_DEVICES",
    "mlx5_0",
    "0000:3b:00.0",
    "535.104.05",
    "550.54.15",
    "dmesg -T",
    "journalctl -k",
    "modprobe nvidia",
    "nvidia-container-cli",
    "dcgmi diag -r 3",
    "ibstat",
    "torch.cuda.OutOfMemoryError",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn sentence(rng: &mut Rng) -> String {
    let mut s = String::new();
    let words = 8 + rng.below(12);
    for _ in 0..words {
        match rng.below(10) {
            0..=3 => s.push_str(rng.pick(ZH)),
            4..=8 => {
                s.push(' ');
                s.push_str(rng.pick(EN));
                s.push(' ');
            }
            _ => {
                s.push(' ');
                s.push_str(rng.pick(TECH));
                s.push(' ');
            }
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ") + "."
}

fn generate(dir: &Path, n: usize) {
    let marker = dir.join(".complete");
    if marker.exists() {
        return;
    }
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir.join("runbooks")).unwrap();
    fs::create_dir_all(dir.join("incidents")).unwrap();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    for i in 0..n {
        let incident = i % 10 == 0;
        let title = format!(
            "{} {} {} {}",
            rng.pick(EN),
            rng.pick(ZH),
            rng.pick(TECH),
            rng.pick(ZH)
        );
        let mut text = String::from("---\n");
        text.push_str(&format!("title: '{}'\n", title.replace('\'', "''")));
        if incident {
            text.push_str(&format!(
                "severity: SEV{}\nstatus: final\nstarted_at: 2026-0{}-1{}T03:17:00+08:00\n",
                1 + rng.below(4),
                1 + rng.below(9),
                rng.below(9)
            ));
        } else {
            text.push_str(&format!(
                "summary: '{}'\n",
                sentence(&mut rng).replace('\'', "''")
            ));
            text.push_str(&format!(
                "aliases: ['{}{}', '{} {}']\n",
                rng.pick(ZH),
                rng.pick(ZH),
                rng.pick(EN),
                rng.pick(EN)
            ));
            text.push_str(&format!(
                "severity: {}\n",
                ["critical", "high", "medium", "low"][rng.below(4) as usize]
            ));
        }
        text.push_str(&format!(
            "tags: [{}, {}]\n---\n",
            rng.pick(EN),
            rng.pick(EN)
        ));
        for heading in ["Symptoms", "Diagnosis", "Fix", "Why it happens", "中文摘要"] {
            text.push_str(&format!("\n## {heading}\n\n"));
            for _ in 0..(2 + rng.below(4)) {
                text.push_str(&sentence(&mut rng));
                text.push(' ');
            }
            text.push('\n');
        }
        let folder = if incident { "incidents" } else { "runbooks" };
        let name = if incident {
            format!("2026-01-01-doc-{i:06}")
        } else {
            format!("doc-{i:06}")
        };
        fs::write(dir.join(folder).join(format!("{name}.md")), text).unwrap();
    }
    fs::write(marker, "").unwrap();
}

const QUERIES: &[&str] = &[
    "驱动版本不匹配",
    "掉卡",
    "显存不足",
    "降频 温度过高",
    "网卡 超时",
    "容器 运行时 失败",
    "共享内存",
    "内核模块 加载失败",
    "固件 升级",
    "告警 监控",
    "driver mismatch",
    "kernel module",
    "timeout collective",
    "memory allocation failed",
    "thermal throttle",
    "fabric switch",
    "Xid 79",
    "nvidia-smi",
    "/dev/nvidia-uvm",
    "535.104.05",
    "NCCL_SOCKET_IFNAME",
    "mlx5_0",
    "0000:3b:00.0",
    "\"kernel module\"",
    "drivr",
    "firmwre upgrade",
    "watchd",
    "alloc",
    "kind:incident 掉卡",
    "severity:critical driver",
    "torch.cuda.OutOfMemoryError",
    "dcgmi diag",
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-search");
    let sizes: Vec<usize> = std::env::var("LORE_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000]);
    for n in sizes {
        let root = base.join(format!("root-{n}"));
        let started = Instant::now();
        generate(&root, n);
        println!(
            "== {n} documents ({} to generate or reuse)",
            fmt(started.elapsed())
        );
        let index_dir = root.join(".lore/index");
        let _ = fs::remove_dir_all(&index_dir);

        let started = Instant::now();
        let index = SearchIndex::open(&index_dir).unwrap();
        let stats = index.sync(&root, true, &mut |_, _| {}).unwrap();
        let full = started.elapsed();
        println!("full index: {} ({} files)", fmt(full), stats.added);
        drop(index);

        // Start-up as `lore search` does it: open, check every file's stamp, first query.
        let started = Instant::now();
        let index = SearchIndex::open(&index_dir).unwrap();
        let opened = started.elapsed();
        let first = index.search("驱动版本不匹配", 10, None).unwrap();
        let open_query = started.elapsed();
        index.sync(&root, false, &mut |_, _| {}).unwrap();
        let with_sync = started.elapsed();
        println!(
            "start-up: open {:.1} ms, open + first query {:.1} ms ({} hits), + stamp check of all files {:.1} ms",
            ms(opened),
            ms(open_query),
            first.total,
            ms(with_sync)
        );

        let mut times = Vec::new();
        for _ in 0..5 {
            for q in QUERIES {
                let t = Instant::now();
                let r = index.search(q, 10, None).unwrap();
                times.push(t.elapsed());
                std::hint::black_box(r);
            }
        }
        times.sort();
        println!(
            "query with snippets, {} runs: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            times.len(),
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().unwrap())
        );

        // An edit, then the same sync the watcher runs, then the query that finds it.
        let target = root.join("runbooks/doc-000001.md");
        let original = fs::read_to_string(&target).unwrap();
        for (label, full) in [
            ("the changed file, as the watcher reports it", false),
            ("a stamp check of every file", true),
        ] {
            let mut latencies = Vec::new();
            for k in 0..5 {
                let word = format!("benchedit{k}{full}x");
                fs::write(&target, format!("{original}\n{word}\n")).unwrap();
                let t = Instant::now();
                if full {
                    index.sync(&root, false, &mut |_, _| {}).unwrap();
                } else {
                    index
                        .sync_files(&root, &["runbooks/doc-000001.md".to_string()])
                        .unwrap();
                }
                let found = index.search(&word, 1, None).unwrap();
                latencies.push(t.elapsed());
                assert_eq!(found.hits.len(), 1, "the edit is searchable");
            }
            latencies.sort();
            println!(
                "edit searchable ({label}; re-index, commit, query): median {:.1} ms, max {:.1} ms",
                ms(latencies[2]),
                ms(latencies[4])
            );
        }
        fs::write(&target, original).unwrap();

        // The grep-the-wiki baseline: one rg per query over the same files.
        let mut rg_times = Vec::new();
        for q in QUERIES.iter().take(16) {
            let t = Instant::now();
            let out = Command::new("rg")
                .args(["-i", "-l", "-F", "--", q])
                .arg(&root)
                .output();
            match out {
                Ok(_) => rg_times.push(t.elapsed()),
                Err(_) => break,
            }
        }
        if rg_times.is_empty() {
            println!("rg not installed");
        } else {
            rg_times.sort();
            println!(
                "rg -i -l (same files), {} queries: p50 {:.1} ms, p99 {:.1} ms",
                rg_times.len(),
                ms(percentile(&rg_times, 0.5)),
                ms(percentile(&rg_times, 0.99))
            );
        }
    }
}

fn fmt(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}
