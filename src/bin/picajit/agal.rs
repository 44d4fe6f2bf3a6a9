//! `picajit agal …`: the AGAL (Stage3D) tools — `asm` (AGALMiniAssembler's language to
//! bytecode), `disasm` (bytecode to text that assembles back to the same bytes), `info` (header,
//! Flash's validation verdict, what the program reads and writes, listing) and `run` (an AGCS
//! case, or a program on seeded random inputs, on the reference interpreter). `picajit run`
//! hands AGAL files here too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use picajit::agal::asm::{self, Options};
use picajit::agal::case::{random_case, AgalCase, Outputs};
use picajit::agal::validate::{validate, Options as ValidateOptions};
use picajit::agal::{disasm, Bytecode, RegType, ShaderKind};

use crate::{read_file, CliResult};

#[derive(Subcommand)]
pub enum AgalCommand {
    /// Assemble AGALMiniAssembler text into AGAL bytecode.
    Asm(AsmArgs),
    /// Disassemble AGAL bytecode (or an AGCS case's program) into text that assembles back to
    /// the same bytes.
    Disasm(DisasmArgs),
    /// Describe a program: header, Flash's validation verdict, registers, samplers, listing.
    Info(InfoArgs),
    /// Run an AGCS case, or a program on seeded random inputs, on the reference interpreter.
    Run(RunArgs),
}

/// The program kind and version of a source, when the text does not say them.
#[derive(Args, Default)]
pub struct SourceSettings {
    /// Assemble as a vertex program.
    #[arg(long, conflicts_with = "fragment")]
    vertex: bool,
    /// Assemble as a fragment program.
    #[arg(long)]
    fragment: bool,
    /// AGAL version (default: the text's `.version`, else 1).
    #[arg(long)]
    version: Option<u32>,
    /// Accept every register number up to 1024 (AGALMiniAssembler's `ignorelimits`).
    #[arg(long)]
    ignore_limits: bool,
}

impl SourceSettings {
    fn options(&self) -> Options {
        let kind = if self.vertex {
            Some(ShaderKind::Vertex)
        } else if self.fragment {
            Some(ShaderKind::Fragment)
        } else {
            None
        };
        Options {
            kind,
            version: self.version,
            ignore_limits: self.ignore_limits,
        }
    }
}

#[derive(Args)]
pub struct AsmArgs {
    /// The source file.
    input: PathBuf,
    /// The bytecode file to write (default: the input with extension `.agalbin`).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    settings: SourceSettings,
}

#[derive(Args)]
pub struct DisasmArgs {
    /// AGAL bytecode, or an AGCS case.
    input: PathBuf,
    /// Write the text here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Args)]
pub struct InfoArgs {
    /// AGAL bytecode, an AGCS case, or a source (`.agal`).
    input: PathBuf,
    #[command(flatten)]
    settings: SourceSettings,
}

#[derive(Args)]
pub struct RunArgs {
    /// An AGCS case, AGAL bytecode or a source (`.agal`).
    pub input: PathBuf,
    /// Where to write the outputs of a case as AGOU (default: print them).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Programs only: how many random vertices (or 2×2 quads of fragments).
    #[arg(long, default_value_t = 4)]
    pub count: usize,
    /// Programs only: seed of the random constants, inputs and textures.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Programs only: also save the random case as AGCS.
    #[arg(long)]
    pub save_case: Option<PathBuf>,
    /// The engine: the AGAL interpreter, or a JIT backend through the shared IR (the same
    /// results; programs it cannot compile run on the interpreter).
    #[arg(long, value_enum, default_value = "interp")]
    pub backend: crate::Backend,
    #[command(flatten)]
    pub settings: SourceSettings,
}

pub fn agal(command: &AgalCommand) -> CliResult {
    match command {
        AgalCommand::Asm(a) => asm_cmd(a),
        AgalCommand::Disasm(a) => disasm_cmd(a),
        AgalCommand::Info(a) => info_cmd(a),
        AgalCommand::Run(a) => run_cmd(a),
    }
}

/// True for files `picajit run` should hand to the AGAL runner: AGCS cases, `.agal` sources,
/// and bytecode starting with the AGAL magic `0xA0`.
pub fn is_agal(path: &Path, bytes: &[u8]) -> bool {
    bytes.starts_with(b"AGCS")
        || path.extension().is_some_and(|e| e == "agal")
        || (bytes.first() == Some(&0xA0) && bytes.get(5) == Some(&0xA1))
}

fn is_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "agal")
}

/// Assembles a source, printing its warnings; errors become the message.
fn assemble_file(path: &Path, settings: &SourceSettings) -> Result<Vec<u8>, String> {
    let bytes = read_file(path)?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    let name = path.display().to_string();
    match asm::assemble(&name, &text, &settings.options()) {
        Ok(a) => {
            for w in &a.warnings {
                eprintln!("{w}");
            }
            Ok(a.bytes)
        }
        Err(diags) => {
            let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
            let errors = diags.iter().filter(|d| d.is_error()).count();
            Err(format!(
                "{}\n{name}: {errors} error(s); nothing written",
                text.join("\n")
            ))
        }
    }
}

/// The program bytes of a file: a case's program, a source assembled, or bytecode as is.
fn program_bytes(path: &Path, settings: &SourceSettings) -> Result<Vec<u8>, String> {
    if is_source(path) {
        return assemble_file(path, settings);
    }
    let bytes = read_file(path)?;
    if bytes.starts_with(b"AGCS") {
        let case = AgalCase::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(case.program);
    }
    Ok(bytes)
}

fn write_out(path: Option<&Path>, data: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => std::fs::write(p, data).map_err(|e| format!("{}: {e}", p.display())),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(data).and_then(|()| out.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("standard output: {e}")),
            }
        }
    }
}

fn asm_cmd(args: &AsmArgs) -> CliResult {
    let bytes = assemble_file(&args.input, &args.settings)?;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("agalbin"));
    write_out(Some(&out), &bytes)?;
    Ok(ExitCode::SUCCESS)
}

fn disasm_cmd(args: &DisasmArgs) -> CliResult {
    let bytes = read_file(&args.input)?;
    let program = if bytes.starts_with(b"AGCS") {
        AgalCase::parse(&bytes)
            .map_err(|e| format!("{}: {e}", args.input.display()))?
            .program
    } else {
        bytes
    };
    write_out(
        args.output.as_deref(),
        disasm::disassemble(&program).as_bytes(),
    )?;
    Ok(ExitCode::SUCCESS)
}

fn info_cmd(args: &InfoArgs) -> CliResult {
    let bytes = program_bytes(&args.input, &args.settings)?;
    let code = Bytecode::split(&bytes);
    outln!("{}: {} bytes", args.input.display(), bytes.len());
    match code.header {
        Some(h) => outln!(
            "header: magic {:#04x}, version {}, tag {:#04x}, kind {} ({}); {} token(s){}",
            h.magic,
            h.version,
            h.tag,
            h.kind,
            h.shader_kind().map_or("unknown", |k| k.name()),
            code.tokens.len(),
            if code.tail.is_empty() {
                String::new()
            } else {
                format!(", {} trailing byte(s)", code.tail.len())
            }
        ),
        None => outln!("header: missing (fewer than 7 bytes)"),
    }
    match validate(&bytes, &ValidateOptions::default()) {
        Ok(p) => {
            outln!("validation: accepted (Flash's upload rules)");
            let i = &p.interface;
            let list = |bits: u32, n: usize, name: &str| -> String {
                let v: Vec<String> = (0..n)
                    .filter(|k| bits & (1 << k) != 0)
                    .map(|k| format!("{name}{k}"))
                    .collect();
                if v.is_empty() {
                    "-".to_string()
                } else {
                    v.join(" ")
                }
            };
            match p.kind {
                ShaderKind::Vertex => {
                    outln!(
                        "reads: {}{}",
                        list(u32::from(i.attributes_read), 16, "va"),
                        if i.reads_instance_id { " iid" } else { "" }
                    );
                    let written: u32 = (0..16)
                        .filter(|&v| i.varyings_written[v].0 != 0)
                        .fold(0, |m, v| m | 1 << v);
                    outln!("writes: op {}", list(written, 16, "v"));
                }
                ShaderKind::Fragment => {
                    outln!("reads: {}", list(u32::from(i.varyings_read), 16, "v"));
                    outln!(
                        "writes: {}{}{}",
                        list(u32::from(i.colors_written), 4, "oc"),
                        if i.depth_written { " od" } else { "" },
                        if i.kills { " (kil)" } else { "" }
                    );
                }
            }
            for s in &i.samplers {
                outln!("sampler {}: {:?}", s.unit, s.state);
            }
            outln!(
                "constants: {} {} registers",
                p.constant_count(),
                RegType::Constant.name(p.kind).unwrap_or("?")
            );
        }
        Err(e) => outln!("validation: rejected: {e}"),
    }
    outln!();
    out!("{}", disasm::disassemble(&bytes));
    Ok(ExitCode::SUCCESS)
}

/// `picajit agal run` and `picajit run` on AGAL files.
pub fn run_cmd(args: &RunArgs) -> CliResult {
    let name = args.input.display().to_string();
    let raw = if is_source(&args.input) {
        None
    } else {
        Some(read_file(&args.input)?)
    };
    let case = match raw {
        Some(b) if b.starts_with(b"AGCS") => {
            AgalCase::parse(&b).map_err(|e| format!("{name}: {e}"))?
        }
        other => {
            let bytes = match other {
                Some(b) => b,
                None => assemble_file(&args.input, &args.settings)?,
            };
            let case =
                random_case(&bytes, args.count, args.seed).map_err(|e| format!("{name}: {e}"))?;
            if let Some(path) = &args.save_case {
                write_out(Some(path), &case.to_bytes())?;
            }
            case
        }
    };
    let outputs = match args.backend {
        crate::Backend::Interp => case.run(),
        b => {
            let engine = picajit::engine::Engine::new(b.engine()).map_err(|e| e.to_string())?;
            engine.run_agal_case(&case)
        }
    }
    .map_err(|e| format!("{name}: {e}"))?;
    if let Some(path) = &args.output {
        write_out(Some(path), &outputs.to_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let f = |v: &[f32; 4]| format!("({:.6}, {:.6}, {:.6}, {:.6})", v[0], v[1], v[2], v[3]);
    match &outputs {
        Outputs::Vertices(vs) => {
            outln!("{name}: vertex program, {} vertices", vs.len());
            for (k, v) in vs.iter().enumerate() {
                outln!("vertex {k}: op = {}", f(&v.position));
                for (i, x) in v.varyings.iter().enumerate() {
                    if *x != [0.0; 4] {
                        outln!("          v{i} = {}", f(x));
                    }
                }
            }
        }
        Outputs::Fragments(fs) => {
            outln!("{name}: fragment program, {} fragments", fs.len());
            for (k, x) in fs.iter().enumerate() {
                outln!(
                    "fragment {k} (quad {}, lane {}): oc = {}{}",
                    k / 4,
                    k % 4,
                    f(&x.colors[0]),
                    if x.killed { "  killed" } else { "" }
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `picajit dump` of an AGAL file (source, bytecode or AGCS case): how it compiles on
/// `backend` — the execution path (native, or the interpreter fallback with its reason), the
/// segments and the texture samples between them, the IR of each segment (`ir`) and the
/// native code of the last (`asm`).
pub fn dump_agal(path: &Path, backend: crate::Backend, ir: bool, asm: bool) -> CliResult {
    let name = path.display().to_string();
    let bytes = program_bytes(path, &SourceSettings::default())?;
    let program =
        validate(&bytes, &ValidateOptions::default()).map_err(|e| format!("{name}: {e}"))?;
    let engine = picajit::engine::Engine::new(backend.engine()).map_err(|e| e.to_string())?;
    let shader = engine.compile_agal(&program);
    outln!("backend: {}", engine.backend().name());
    outln!("path: {}", shader.path());
    if let Some(funcs) = shader.ir() {
        let samples = shader.samples();
        outln!(
            "AGAL {:?} program: {} segment(s), {} texture sample(s) between them",
            program.kind,
            funcs.len(),
            samples.len()
        );
        for (k, func) in funcs.iter().enumerate() {
            outln!(
                "segment {k}: IR {} blocks, {} instructions",
                func.blocks.len(),
                func.inst_count()
            );
            if ir {
                out!("{func}");
            }
            if let Some(s) = samples.get(k) {
                outln!(
                    "sample after segment {k}: unit {}, {:?}, level of detail {:?}",
                    s.unit,
                    s.state,
                    s.lod
                );
            }
        }
    } else if ir {
        outln!("(no IR: the program runs on the interpreter)");
    }
    if let Some(code) = shader.machine_code() {
        outln!(
            "native (last segment): {}",
            crate::dump::native_summary(code)
        );
        if asm {
            out!("{}", code.disassemble());
        }
    } else if asm {
        outln!("(no native code: the program runs on the interpreter)");
    }
    Ok(ExitCode::SUCCESS)
}
