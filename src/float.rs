//! The one statement of PICA float rules.
