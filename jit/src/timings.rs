//! Compile-time breakdown: how long each phase of one compile took.
//!
//! A compile that should be timed is handed a running [`Clock`] ([`Clock::on`]); every phase
//! boundary calls [`Clock::lap`] with the name of the phase that just ended, which charges the
//! time since the previous lap to that phase in the [`Timings`]. The phases therefore tile the
//! compile: their sum is the time from [`Clock::on`] to the last lap. A phase lapped several times
//! (a loop over rounds) accumulates into one entry, listed where it first appeared.
//!
//! An ordinary compile passes [`Clock::off`]: a lap is then one predictable branch, with no
//! clock read — timing costs nothing when nobody asked for it.

use std::time::{Duration, Instant};

/// Durations of compile phases, in the order each phase first ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    phases: Vec<(&'static str, Duration)>,
}

impl Timings {
    /// No phases yet.
    pub fn new() -> Timings {
        Timings::default()
    }

    /// Every phase and its (accumulated) duration, in the order they first ended.
    pub fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    /// The duration of `phase` (zero if it never ran).
    pub fn get(&self, phase: &str) -> Duration {
        self.phases
            .iter()
            .find(|(p, _)| *p == phase)
            .map_or(Duration::ZERO, |&(_, d)| d)
    }

    /// The sum of all phases.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|&(_, d)| d).sum()
    }

    /// Adds `d` to `phase` (a new entry at the end if it is new).
    pub fn add(&mut self, phase: &'static str, d: Duration) {
        match self.phases.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, total)) => *total += d,
            None => self.phases.push((phase, d)),
        }
    }
}

/// The stopwatch a compile laps at its phase boundaries: running into a [`Timings`], or off.
#[derive(Debug)]
pub struct Clock<'a> {
    running: Option<(&'a mut Timings, Instant)>,
}

impl Clock<'static> {
    /// A clock that records nothing and never reads the time.
    pub fn off() -> Clock<'static> {
        Clock { running: None }
    }
}

impl<'a> Clock<'a> {
    /// A clock started now, charging laps to `timings`.
    pub fn on(timings: &'a mut Timings) -> Clock<'a> {
        Clock {
            running: Some((timings, Instant::now())),
        }
    }

    /// True if laps are recorded.
    pub fn is_on(&self) -> bool {
        self.running.is_some()
    }

    /// Charges the time since the previous lap (or the start) to `phase`.
    #[inline]
    pub fn lap(&mut self, phase: &'static str) {
        if let Some((timings, last)) = &mut self.running {
            let now = Instant::now();
            timings.add(phase, now - *last);
            *last = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laps_tile_the_time_and_repeated_phases_accumulate() {
        let mut t = Timings::new();
        let start = Instant::now();
        {
            let mut c = Clock::on(&mut t);
            assert!(c.is_on());
            for _ in 0..3 {
                c.lap("a");
                std::hint::black_box((0..1000).sum::<u64>());
                c.lap("b");
            }
            c.lap("c");
        }
        let elapsed = start.elapsed();
        let names: Vec<&str> = t.phases().iter().map(|&(p, _)| p).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(t.total() <= elapsed);
        assert_eq!(t.total(), t.get("a") + t.get("b") + t.get("c"));
        assert_eq!(t.get("missing"), Duration::ZERO);
    }

    #[test]
    fn an_off_clock_records_nothing() {
        let mut c = Clock::off();
        assert!(!c.is_on());
        c.lap("a");
        let t = Timings::new();
        assert!(t.phases().is_empty());
        assert_eq!(t.total(), Duration::ZERO);
    }
}
