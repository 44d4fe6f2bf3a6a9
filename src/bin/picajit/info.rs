//! `picajit info`: what a SHBIN file holds — its DVLEs with entry points, masks, geometry fields
//! and every table, then a plain listing of the shared code with entry points marked and
//! undefined opcodes or stray bits called out by address.

use std::path::Path;
use std::process::ExitCode;

use picajit::isa::{Instruction, Opcode};
use picajit::program::ShaderKind;
use picajit::shbin::{Constant, Dvle, RegisterFile, Shbin};

use crate::{read_file, CliResult};

pub fn info(path: &Path) -> CliResult {
    let bytes = read_file(path)?;
    let shbin = Shbin::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let code = &shbin.dvlp.code;
    outln!(
        "{}: {} bytes, {} DVLE(s), {} code words, {} operand descriptors{}",
        path.display(),
        bytes.len(),
        shbin.dvles.len(),
        code.len(),
        shbin.dvlp.descs.len(),
        if shbin.is_canonical() {
            ""
        } else {
            " (non-canonical layout, kept on write)"
        }
    );
    for (n, dvle) in shbin.dvles.iter().enumerate() {
        print_dvle(n, dvle);
    }
    let descs: Vec<u32> = shbin.dvlp.descs.iter().map(|d| d.word).collect();
    outln!("\ncode:");
    let mut problems = 0;
    for (addr, &word) in code.iter().enumerate() {
        for (n, dvle) in shbin.dvles.iter().enumerate() {
            if dvle.entry_start as usize == addr {
                outln!("      ; entry of DVLE {n}");
            }
        }
        let instr = Instruction::decode(word);
        let unused = Instruction::unused_bits(word);
        let mut note = String::new();
        if instr.opcode() == Opcode::Undefined {
            note = "  ; undefined opcode (runs as NOP)".to_string();
            problems += 1;
        } else if unused != 0 {
            note = format!("  ; unused bits set: {unused:#010x}");
        }
        outln!("{addr:#06x}  {word:08x}  {}{note}", instr.listing(&descs));
    }
    outln!("\noperand descriptors:");
    for (n, d) in shbin.dvlp.descs.iter().enumerate() {
        outln!("{n:>4}  {:08x}  (extra {:08x})", d.word, d.extra);
    }
    if problems > 0 {
        outln!("\n{problems} undefined opcode(s) in the code");
    }
    Ok(ExitCode::SUCCESS)
}

fn print_dvle(n: usize, dvle: &Dvle) {
    let kind = match dvle.kind {
        ShaderKind::Vertex => "vertex",
        ShaderKind::Geometry => "geometry",
    };
    outln!(
        "\nDVLE {n}: {kind} shader, version {:#06x}, entry {:#05x}..{:#05x}, inputs {:#06x}, \
         outputs {:#06x}{}",
        dvle.version,
        dvle.entry_start,
        dvle.entry_end,
        dvle.input_mask,
        dvle.output_mask,
        if dvle.merge_outmaps {
            ", merge output maps"
        } else {
            ""
        }
    );
    if dvle.kind == ShaderKind::Geometry {
        outln!(
            "  geometry: mode {:?}, fixed start c{}, variable count {}, fixed count {}",
            dvle.gs_mode,
            dvle.gs_fixed_start,
            dvle.gs_variable_num,
            dvle.gs_fixed_num
        );
    }
    for c in &dvle.constants {
        match c {
            Constant::Float { reg, .. } => {
                let v = c.float_value().unwrap_or([f32::NAN; 4]);
                outln!(
                    "  constant c{reg} = ({}, {}, {}, {})",
                    v[0],
                    v[1],
                    v[2],
                    v[3]
                );
            }
            Constant::Int { reg, value } => outln!("  constant i{reg} = {value:?}"),
            Constant::Bool { reg, value } => outln!("  constant b{reg} = {value}"),
            Constant::Raw {
                type_code,
                reg,
                data,
            } => {
                outln!("  constant (type {type_code}) register {reg}: {data:08x?}")
            }
        }
    }
    for o in &dvle.outputs {
        let mask: String = (0..4)
            .filter(|i| o.mask >> i & 1 != 0)
            .map(|i| ['x', 'y', 'z', 'w'][i])
            .collect();
        let name = o
            .semantic
            .name()
            .map_or_else(|| format!("type {}", o.semantic.code()), str::to_string);
        outln!("  output o{}.{mask} = {name}", o.reg);
    }
    for u in &dvle.uniforms {
        match u.registers() {
            Some(range) if range.file == RegisterFile::Input => {
                outln!("  input {} = {range}", u.name)
            }
            Some(range) => outln!("  uniform {} = {range}", u.name),
            None => outln!(
                "  uniform {} = registers {:#x}..{:#x} (unknown space)",
                u.name,
                u.first,
                u.last
            ),
        }
    }
    for l in &dvle.labels {
        outln!("  label {} at {:#05x}", l.name, l.location);
    }
}
