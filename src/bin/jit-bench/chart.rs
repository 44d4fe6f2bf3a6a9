//! `--svg`: a horizontal bar chart of the speedup over the interpreter, one bar per shader,
//! backend and I/O layout (single thread), grouped by shader, coloured by backend.

use std::path::Path;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::machine::Machine;
use crate::measure::Row;
use crate::report::{num, ratio};

/// Colours by backend, in order of first appearance (the interpreter's bars are grey).
const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
];

pub fn draw(path: &Path, rows: &[Row], machine: &Machine) -> Result<(), String> {
    let bars: Vec<&Row> = rows
        .iter()
        .filter(|r| r.api != "run_par" && r.backend != "interp" && r.speedup.is_finite())
        .collect();
    let ios = {
        let mut v: Vec<&str> = bars.iter().map(|r| r.io).collect();
        v.dedup();
        v.len()
    };
    let label = |r: &Row| {
        let mut s = format!("{}  {}", r.shader, r.backend);
        if ios > 1 {
            s.push_str(&format!(" {}", r.io));
        }
        if r.path == "fallback" {
            s.push_str(" (fallback)");
        }
        s
    };
    let labels: Vec<String> = bars.iter().map(|r| label(r)).collect();
    let mut backends: Vec<&str> = Vec::new();
    for r in &bars {
        if !backends.contains(&r.backend) {
            backends.push(r.backend);
        }
    }
    let colour = |backend: &str| {
        let i = backends.iter().position(|b| *b == backend).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    };

    let n = bars.len().max(1);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(10);
    let (width, height) = (960u32, 130 + 30 * n as u32);
    let xmax = bars.iter().map(|r| r.speedup).fold(1.0f64, f64::max) * 1.18;

    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let title = format!(
        "picajit speedup over the interpreter — {}",
        machine.cpu_model
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(20 + 8 * longest as u32)
        // Integer ranges are inclusive in plotters: 0..n - 1 is n segments.
        .build_cartesian_2d(0f64..xmax, (0..n - 1).into_segmented())
        .map_err(|e| err(&e))?;
    let row_of = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < n => labels.get(n - 1 - i).cloned(),
        _ => None,
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .y_labels(n)
        .y_label_formatter(&|v| row_of(v).unwrap_or_default())
        .y_label_style(("sans-serif", 14))
        .x_label_style(("sans-serif", 13))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("speedup over the interpreter's AoS path (×), one thread")
        .axis_desc_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;

    for &backend in &backends {
        let c = colour(backend);
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .filter(|(_, r)| r.backend == backend)
                    .map(|(i, r)| {
                        let slot = n - 1 - i;
                        let mut bar = Rectangle::new(
                            [
                                (0.0, SegmentValue::Exact(slot)),
                                (r.speedup, SegmentValue::Exact(slot + 1)),
                            ],
                            c.filled(),
                        );
                        bar.set_margin(4, 4, 0, 0);
                        bar
                    }),
            )
            .map_err(|e| err(&e))?
            .label(backend)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()));
    }
    let value_style = TextStyle::from(("sans-serif", 13).into_font())
        .pos(Pos::new(HPos::Left, VPos::Center))
        .color(&BLACK);
    chart
        .draw_series(bars.iter().enumerate().map(|(i, r)| {
            let at = (r.speedup, SegmentValue::CenterOf(n - 1 - i));
            EmptyElement::at(at)
                + Text::new(
                    format!("{}×  ({} ns/v)", ratio(r.speedup), num(r.ns_per_vertex)),
                    (5, 0),
                    value_style.clone(),
                )
        }))
        .map_err(|e| err(&e))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font(("sans-serif", 14))
        .border_style(BLACK)
        .background_style(WHITE.mix(0.9))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
