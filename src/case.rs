//! PCAS/PCOU case files (`spec/case-files.md`).
