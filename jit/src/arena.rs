//! Long-lived executable memory: the [`CodeArena`] kernels are placed in, so a compile does
//! not map, fault in and unmap memory of its own.
//!
//! An arena owns large anonymous mappings (*chunks*) and hands out whole pages of them. Free
//! pages are read+write and never executable; [`CodeArena::place`] copies a kernel into free
//! pages (zeroing the rest of its last page) and then makes exactly those pages read+execute —
//! no page is ever writable and executable at once, and code is written only while its pages
//! are not executable. The returned [`Placed`] owns the pages: when it drops (its kernel's last
//! handle is gone, so nothing can be running it) the pages turn read+write again and go back
//! to the arena's free list, to be reused by a later kernel without new page faults. A chunk
//! whose pages are all free is unmapped unless it is the arena's only one; the last chunks go
//! when the arena and every kernel placed in it are dropped.
//!
//! Only Unix hosts share pages this way (they change protections with `mprotect`); elsewhere
//! each kernel gets a mapping of its own, as before the arena existed.

use std::io;
use std::sync::{Arc, Mutex, OnceLock};

/// Where kernels' machine code lives: cheap to clone (clones share the pages), safe to share
/// between threads. See the module docs.
#[derive(Clone, Debug, Default)]
pub struct CodeArena {
    state: Arc<Mutex<State>>,
}

/// Machine code placed in an arena (or, off Unix, in a mapping of its own): read+execute
/// until dropped.
#[derive(Debug)]
pub struct Placed {
    inner: Inner,
    len: usize,
}

#[derive(Debug)]
enum Inner {
    #[cfg(unix)]
    Pages {
        state: Arc<Mutex<State>>,
        /// Address of the first page.
        addr: usize,
        pages: usize,
    },
    #[cfg(not(unix))]
    Own(memmap2::Mmap),
}

impl Placed {
    /// The first byte of the code.
    pub fn as_ptr(&self) -> *const u8 {
        match &self.inner {
            #[cfg(unix)]
            Inner::Pages { addr, .. } => *addr as *const u8,
            #[cfg(not(unix))]
            Inner::Own(map) => map.as_ptr(),
        }
    }

    /// Bytes of code (the pages may be longer).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no code was placed (the pages hold one zeroed page anyway).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The code as placed.
    pub fn code(&self) -> &[u8] {
        // SAFETY: the first `len` bytes at `as_ptr` were written before the pages turned
        // read+execute; they stay mapped, readable and unwritten while `self` lives.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }
}

impl CodeArena {
    /// An empty arena (it maps its first chunk when the first kernel is placed).
    pub fn new() -> CodeArena {
        CodeArena::default()
    }

    /// The arena of the process: what [`crate::code::ExecCode::new`] places kernels in.
    pub fn shared() -> &'static CodeArena {
        static SHARED: OnceLock<CodeArena> = OnceLock::new();
        SHARED.get_or_init(CodeArena::new)
    }

    /// Copies `code` into free pages and makes them read+execute (see the module docs).
    pub fn place(&self, code: &[u8]) -> io::Result<Placed> {
        #[cfg(unix)]
        {
            let page = page_size();
            let pages = code.len().div_ceil(page).max(1);
            let addr = lock(&self.state).take(pages, page)?;
            let placed = Placed {
                inner: Inner::Pages {
                    state: Arc::clone(&self.state),
                    addr,
                    pages,
                },
                len: code.len(),
            };
            // SAFETY: `take` handed out `pages` whole pages at `addr`, read+write, inside a
            // chunk this arena mapped and keeps mapped while `placed` (which holds the state)
            // lives; no other `Placed` covers them, and they are not executable, so nothing
            // runs or reads them while they are written.
            let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, pages * page) };
            bytes[..code.len()].copy_from_slice(code);
            bytes[code.len()..].fill(0);
            protect(addr, pages * page, libc::PROT_READ | libc::PROT_EXEC)?;
            Ok(placed)
        }
        #[cfg(not(unix))]
        {
            let mut map = memmap2::MmapMut::map_anon(code.len().max(1))?;
            map[..code.len()].copy_from_slice(code);
            Ok(Placed {
                inner: Inner::Own(map.make_exec()?),
                len: code.len(),
            })
        }
    }

    /// Pages mapped by the arena and pages of them in use (for tests and diagnostics).
    pub fn pages(&self) -> (usize, usize) {
        let state = lock(&self.state);
        let mapped = state.chunks.iter().map(|c| c.pages).sum();
        let free: usize = state
            .chunks
            .iter()
            .flat_map(|c| &c.free)
            .map(|&(_, n)| n)
            .sum();
        (mapped, mapped - free)
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    // The state is consistent at every unlock (no code between an update's steps can panic).
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// The chunks of an arena.
#[derive(Debug, Default)]
struct State {
    chunks: Vec<Chunk>,
}

/// One mapping: `pages` pages at `base`, of which the runs in `free` (first page, count;
/// sorted, never adjacent) are read+write and unused.
#[derive(Debug)]
struct Chunk {
    base: usize,
    pages: usize,
    free: Vec<(usize, usize)>,
}

/// Pages of a new chunk, unless a kernel needs more.
#[cfg(unix)]
const CHUNK_BYTES: usize = 1 << 20;

#[cfg(unix)]
fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf reads a system constant; it has no memory effects.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
    })
}

/// Sets the protection of whole pages `[addr, addr + len)` the arena owns.
#[cfg(unix)]
fn protect(addr: usize, len: usize, prot: libc::c_int) -> io::Result<()> {
    // SAFETY: the range is whole pages of a chunk this arena mapped; changing their protection
    // affects only memory the arena owns, and the callers make sure no code runs in pages made
    // writable (they are free) and none is written in pages made executable.
    let r = unsafe { libc::mprotect(addr as *mut libc::c_void, len, prot) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(unix)]
impl State {
    /// `n` free pages (read+write), taken off the free lists: first fit over the chunks, or
    /// from a new chunk. Returns their address.
    fn take(&mut self, n: usize, page: usize) -> io::Result<usize> {
        for c in &mut self.chunks {
            if let Some(i) = c.free.iter().position(|&(_, len)| len >= n) {
                let (first, len) = c.free[i];
                if len == n {
                    c.free.remove(i);
                } else {
                    c.free[i] = (first + n, len - n);
                }
                return Ok(c.base + first * page);
            }
        }
        let pages = n.max(CHUNK_BYTES / page);
        // SAFETY: a fresh private anonymous mapping at an address the kernel picks: it
        // overlaps nothing the program uses. It is unmapped only in `give` or `drop`, once no
        // `Placed` covers any of its pages.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                pages * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = base as usize;
        let free = if pages > n {
            vec![(n, pages - n)]
        } else {
            Vec::new()
        };
        self.chunks.push(Chunk { base, pages, free });
        Ok(base)
    }

    /// Returns `n` pages at `addr` (made read+write again) to their chunk's free list,
    /// unmapping the chunk if it is wholly free and not the only one.
    fn give(&mut self, addr: usize, n: usize, page: usize) {
        let Some(ci) = self
            .chunks
            .iter()
            .position(|c| addr >= c.base && addr < c.base + c.pages * page)
        else {
            return;
        };
        let c = &mut self.chunks[ci];
        let first = (addr - c.base) / page;
        let at = c.free.partition_point(|&(f, _)| f < first);
        c.free.insert(at, (first, n));
        // Merge with the following run, then with the preceding one.
        if at + 1 < c.free.len() && c.free[at].0 + c.free[at].1 == c.free[at + 1].0 {
            c.free[at].1 += c.free[at + 1].1;
            c.free.remove(at + 1);
        }
        if at > 0 && c.free[at - 1].0 + c.free[at - 1].1 == c.free[at].0 {
            c.free[at - 1].1 += c.free[at].1;
            c.free.remove(at);
        }
        if c.free == [(0, c.pages)] && self.chunks.len() > 1 {
            let c = self.chunks.swap_remove(ci);
            unmap(&c, page);
        }
    }
}

#[cfg(unix)]
fn unmap(c: &Chunk, page: usize) {
    // SAFETY: the chunk was mapped by `State::take` with exactly this size, and no `Placed`
    // covers any of its pages (all are free, or the arena's state is being dropped, which
    // happens only after every `Placed` holding it dropped).
    unsafe {
        libc::munmap(c.base as *mut libc::c_void, c.pages * page);
    }
}

#[cfg(unix)]
impl Drop for State {
    fn drop(&mut self) {
        let page = page_size();
        for c in &self.chunks {
            unmap(c, page);
        }
    }
}

#[cfg(unix)]
impl Drop for Placed {
    fn drop(&mut self) {
        let Inner::Pages { state, addr, pages } = &self.inner;
        let page = page_size();
        // Nothing runs the code any more (its owner is being dropped): the pages may turn
        // writable. If they cannot, they are never reused.
        if protect(*addr, pages * page, libc::PROT_READ | libc::PROT_WRITE).is_ok() {
            lock(state).give(*addr, *pages, page);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placed_code_is_copied_and_pages_are_reused() {
        let arena = CodeArena::new();
        let a = arena.place(&[1, 2, 3]).unwrap();
        let b = arena.place(&vec![7u8; 10_000]).unwrap();
        let (sa, sb) = (a.code(), b.code());
        assert_eq!(sa, &[1, 2, 3]);
        assert!(sb.iter().all(|&x| x == 7) && sb.len() == 10_000);
        assert_ne!(a.as_ptr(), b.as_ptr());
        #[cfg(unix)]
        {
            let page = page_size();
            let (mapped, used) = arena.pages();
            assert_eq!(used, 1 + 10_000usize.div_ceil(page));
            assert!(mapped >= used);
            let a_ptr = a.as_ptr();
            drop(a);
            assert_eq!(arena.pages().1, 10_000usize.div_ceil(page));
            // The freed page is the first fit again.
            let c = arena.place(&[9]).unwrap();
            assert_eq!(c.as_ptr(), a_ptr);
            drop((b, c));
            assert_eq!(arena.pages(), (mapped, 0));
        }
    }

    #[test]
    fn a_kernel_larger_than_a_chunk_gets_its_own_and_empty_extra_chunks_are_unmapped() {
        let arena = CodeArena::new();
        let small = arena.place(&[1]).unwrap();
        let big = arena.place(&vec![5u8; 3 << 20]).unwrap();
        let s = big.code();
        assert!(s.iter().all(|&x| x == 5));
        #[cfg(unix)]
        {
            let page = page_size();
            let one = CHUNK_BYTES / page;
            assert_eq!(arena.pages().0, one + (3 << 20) / page);
            drop(big);
            assert_eq!(arena.pages(), (one, 1));
        }
        drop(small);
    }

    #[test]
    fn threads_place_and_drop_concurrently() {
        let arena = CodeArena::new();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let arena = arena.clone();
                s.spawn(move || {
                    for i in 0..200usize {
                        let code = vec![t; 1 + (i * 37) % 9000];
                        let p = arena.place(&code).unwrap();
                        assert_eq!(p.code(), &code[..]);
                    }
                });
            }
        });
        assert_eq!(arena.pages().1, 0);
    }
}
