//! `lore export`: the signatures as node-problem-detector configs, Loki rules or Sigma rules, on
//! standard output or as files in a directory. Skipped signatures are listed on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::output;
use crate::export::{self, Format, NpdPlugin, Options};

#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    /// node-problem-detector system-log-monitor configs (JSON)
    Npd,
    /// Loki ruler rules (YAML)
    Loki,
    /// Sigma rules (YAML, one per signature)
    Sigma,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PluginArg {
    Kmsg,
    Journald,
    /// A custom plugin running `lore doctor --npd`
    Doctor,
}

#[derive(clap::Args)]
pub struct Args {
    /// What to export for
    #[arg(long, value_enum)]
    format: FormatArg,
    /// Write the files into DIR (created if missing) instead of printing one document
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Where `lore serve` is reachable; alerts link to URL/runbooks/<id>
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:7070")]
    base_url: String,
    /// npd: the plugin(s) to write configs for (log watchers, or `doctor`); stdout takes one
    /// (default kmsg)
    #[arg(long, value_enum)]
    plugin: Vec<PluginArg>,
    /// npd doctor plugin: where the lore binary is on the node
    #[arg(long, value_name = "PATH", default_value = "/usr/local/bin/lore")]
    lore_bin: String,
    /// npd doctor plugin: the library root lore reads on the node
    #[arg(long, value_name = "DIR", default_value = "/var/lib/lore")]
    lore_root: String,
    /// loki: the range counted by count_over_time
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    window: String,
    /// loki: the LogQL stream selector the line filters apply to
    #[arg(long, value_name = "SELECTOR", default_value = r#"{job=~".+"}"#)]
    selector: String,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let library = super::load_library(root)?;
    let format = match args.format {
        FormatArg::Npd => Format::Npd,
        FormatArg::Loki => Format::Loki,
        FormatArg::Sigma => Format::Sigma,
    };
    let mut plugins: Vec<NpdPlugin> = args
        .plugin
        .iter()
        .map(|p| match p {
            PluginArg::Kmsg => NpdPlugin::Kmsg,
            PluginArg::Journald => NpdPlugin::Journald,
            PluginArg::Doctor => NpdPlugin::Doctor,
        })
        .collect();
    plugins.dedup();
    if plugins.is_empty() {
        plugins = if args.out.is_some() {
            vec![NpdPlugin::Kmsg, NpdPlugin::Journald]
        } else {
            vec![NpdPlugin::Kmsg]
        };
    }
    if format == Format::Npd && args.out.is_none() && plugins.len() > 1 {
        anyhow::bail!("standard output takes one config: give one --plugin, or --out DIR");
    }
    let options = Options {
        base_url: args.base_url,
        window: args.window,
        selector: args.selector,
        plugins,
        lore_bin: args.lore_bin,
        lore_root: args.lore_root,
    };
    let export = export::export(&library.runbooks, format, &options)?;
    for warning in &export.warnings {
        eprintln!("lore: {warning}");
    }
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            for file in &export.files {
                let path = dir.join(&file.name);
                std::fs::write(&path, &file.contents)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            eprintln!(
                "lore: {} signature(s) exported, {} skipped; {} file(s) in {}",
                export.exported,
                export.warnings.len(),
                export.files.len(),
                dir.display()
            );
        }
        None => {
            output::print(|out| {
                for (i, file) in export.files.iter().enumerate() {
                    // Sigma: one YAML document per rule.
                    if i > 0 {
                        out.write_all(b"---\n")?;
                    }
                    out.write_all(file.contents.as_bytes())?;
                }
                Ok(())
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
