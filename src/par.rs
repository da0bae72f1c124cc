//! A parallel map over a slice on all cores, for the start-up work that dominates a paste's
//! answer time (parsing documents, analysing patterns) and for the scan of a large input. Order
//! is kept.
//!
//! The helpers are threads started once and kept for the life of the process. A scan of a large
//! input calls [`map`] once per piece, thousands of times: a new thread per call made every
//! compiled regex keep a cache per thread it had ever met (its pool spreads callers over several
//! stacks by thread number), and the peak memory of a 2 GB scan grew with its length.

use std::cell::Cell;
use std::num::NonZeroUsize;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, mpsc};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The kept helper threads: as many as there are cores besides the caller's.
struct Pool {
    queue: Mutex<mpsc::Sender<Job>>,
    helpers: usize,
}

static POOL: LazyLock<Option<Pool>> = LazyLock::new(|| {
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    if threads < 2 {
        return None;
    }
    let (queue, jobs) = mpsc::channel::<Job>();
    let jobs = Arc::new(Mutex::new(jobs));
    let mut helpers = 0;
    for n in 1..threads {
        let jobs = Arc::clone(&jobs);
        let started = std::thread::Builder::new()
            .name(format!("lore-helper-{n}"))
            .spawn(move || {
                IN_HELPER.with(|h| h.set(true));
                loop {
                    let job = match jobs.lock() {
                        Ok(jobs) => jobs.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                }
            });
        if started.is_ok() {
            helpers += 1;
        }
    }
    (helpers > 0).then(|| Pool {
        queue: Mutex::new(queue),
        helpers,
    })
});

thread_local! {
    /// Whether this thread is one of the pool's: a [`map`] called from a job runs on its own
    /// thread (waiting there for another job could wait for itself).
    static IN_HELPER: Cell<bool> = const { Cell::new(false) };
}

/// A job's state, shared by the caller and the helper that may run it.
struct Ticket {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
    Done,
    Panicked,
    Cancelled,
}

impl Ticket {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The helper's start: false if the caller has already gone on without it.
    fn claim(&self) -> bool {
        let mut state = self.lock();
        let waiting = *state == State::Waiting;
        if waiting {
            *state = State::Running;
        }
        waiting
    }

    fn finish(&self, panicked: bool) {
        *self.lock() = if panicked {
            State::Panicked
        } else {
            State::Done
        };
        self.changed.notify_all();
    }

    /// The caller's end: cancels a job no helper has started, else waits for it to finish.
    /// Returns whether it panicked.
    fn cancel_or_wait(&self) -> bool {
        let mut state = self.lock();
        if *state == State::Waiting {
            *state = State::Cancelled;
        }
        while *state == State::Running {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        *state == State::Panicked
    }
}

/// `items.iter().map(f).collect()`, with the items shared out to the caller and the helpers as
/// each finishes its last one (items differ a lot in cost: one runbook may hold 200 signatures).
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let pool = match &*POOL {
        Some(pool) if items.len() >= 2 && !IN_HELPER.with(Cell::get) => pool,
        _ => return items.iter().map(&f).collect(),
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                break;
            };
            done.push((i, f(item)));
        }
        results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(done);
    };
    let tickets: Vec<Arc<Ticket>> = (0..pool.helpers.min(items.len() - 1))
        .map(|_| {
            Arc::new(Ticket {
                state: Mutex::new(State::Waiting),
                changed: Condvar::new(),
            })
        })
        .collect();
    for ticket in &tickets {
        let ticket = Arc::clone(ticket);
        let work: &(dyn Fn() + Sync) = &work;
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            if ticket.claim() {
                let outcome = catch_unwind(AssertUnwindSafe(work));
                ticket.finish(outcome.is_err());
            }
        });
        // SAFETY: the job uses `work` (which borrows this call's data) only after claiming its
        // ticket, and this call does not return, or unwind, before every claimed ticket is
        // finished (`cancel_or_wait` below, after the caller's own share, which cannot unwind
        // past it). A job never claimed touches nothing borrowed when it runs or is dropped.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
        let queue = pool.queue.lock().unwrap_or_else(|e| e.into_inner());
        // A helper that is gone leaves the job unsent: it is dropped here, never claimed.
        let _ = queue.send(job);
    }
    // By reference: the jobs point at `work` where it is.
    let own = catch_unwind(AssertUnwindSafe(&work));
    let mut helper_panicked = false;
    for ticket in &tickets {
        helper_panicked |= ticket.cancel_or_wait();
    }
    if let Err(panic) = own {
        resume_unwind(panic);
    }
    assert!(!helper_panicked, "a worker does not panic");
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_unstable_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(
            map(&items, |x| x * 2),
            items.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(map(&[1, 2], |x| x + 1), vec![2, 3]);
    }

    #[test]
    fn nested_and_concurrent_calls_finish() {
        let items: Vec<u64> = (0..64).collect();
        let outer = |x: &u64| map(&items, |y| x * y).iter().sum::<u64>();
        let expected: Vec<u64> = items.iter().map(|x| x * 2016).collect();
        std::thread::scope(|scope| {
            let callers: Vec<_> = (0..4).map(|_| scope.spawn(|| map(&items, outer))).collect();
            for caller in callers {
                assert_eq!(caller.join().unwrap(), expected);
            }
        });
    }

    #[test]
    fn a_panic_in_f_reaches_the_caller_and_the_pool_goes_on() {
        let items: Vec<u32> = (0..100).collect();
        let caught = catch_unwind(|| map(&items, |&x| if x == 57 { panic!("57") } else { x }));
        assert!(caught.is_err());
        assert_eq!(map(&items, |x| x + 1)[99], 100);
    }
}
