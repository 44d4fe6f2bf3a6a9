//! Host-neutral passes over the IR (dead-code elimination, liveness): written in the frontend branch.
