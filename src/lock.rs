//! The one way agg takes a lock. A holder that panicked leaves consistent data behind: every
//! critical section in agg is a plain read, insert or replace, never a multi-step update
//! half done, so a poisoned lock is taken over rather than spread as a second panic.
//! Everything that holds a `Mutex` or an `RwLock` reaches it through these two traits.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A `Mutex` taken over even when poisoned.
pub trait MutexExt<T> {
    /// The guard, whether or not a holder panicked.
    fn locked(&self) -> MutexGuard<'_, T>;
    /// The value, through exclusive access (no locking needed).
    fn locked_mut(&mut self) -> &mut T;
    /// The value, consuming the lock.
    fn unlocked(self) -> T;
}

impl<T> MutexExt<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn locked_mut(&mut self) -> &mut T {
        self.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    fn unlocked(self) -> T {
        self.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An `RwLock` taken over even when poisoned.
pub trait RwLockExt<T> {
    /// A read guard, whether or not a writer panicked.
    fn read_locked(&self) -> RwLockReadGuard<'_, T>;
    /// The write guard, whether or not a writer panicked.
    fn write_locked(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T> RwLockExt<T> for RwLock<T> {
    fn read_locked(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_locked(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}
