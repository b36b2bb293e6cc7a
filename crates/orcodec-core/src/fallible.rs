//! Allocation that fails with an error instead of aborting the process.
//!
//! `Vec::push`, `Vec::with_capacity`, `to_vec` and `collect` abort the
//! process when the allocator says no (and the extension's release build
//! turns any panic into an abort too). Everything whose size input decides
//! goes through these instead, so running out of memory is a MemoryError
//! the caller can handle.

// The one place that calls Vec's growing methods: after `try_reserve` made
// the room, so they cannot allocate.
#![allow(clippy::disallowed_methods)]

/// The allocator could not provide the memory asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoMemory;

/// Appends `value`, growing the vector geometrically (as `push` does): on
/// the usual path one compare, like `Vec::push`. On failure `value` is
/// dropped (out of line, so a caller's loop carries no drop code for it).
#[inline(always)]
pub fn push<T>(vec: &mut Vec<T>, value: T) -> Result<(), NoMemory> {
    let len = vec.len();
    if len == vec.capacity() {
        return push_slow(vec, value);
    }
    // SAFETY: `len < capacity`: the slot is allocated and unused; it is
    // initialised before the length covers it.
    unsafe {
        vec.as_mut_ptr().add(len).write(value);
        vec.set_len(len + 1);
    }
    Ok(())
}

/// [`push`] into a full vector: grows it, then pushes.
#[cold]
#[inline(never)]
fn push_slow<T>(vec: &mut Vec<T>, value: T) -> Result<(), NoMemory> {
    grow(vec, 1)?;
    vec.push(value);
    Ok(())
}

/// Makes room for `additional` more items: doubling the capacity (at least),
/// as `Vec` grows; when that memory cannot be had, 1.5, 1.25 and 1.125
/// times. Still geometric, so a vector filled item by item is copied
/// O(log n) times even when memory is short, and it fails only when even
/// an eighth more (or what `additional` needs) cannot be had.
fn grow<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), NoMemory> {
    if vec.try_reserve(additional).is_ok() {
        return Ok(());
    }
    let (len, capacity) = (vec.len(), vec.capacity());
    let needed = len.checked_add(additional).ok_or(NoMemory)?;
    for eighths in [12, 10, 9] {
        let target = (capacity / 8).saturating_mul(eighths).max(needed);
        if vec.try_reserve_exact(target - len).is_ok() {
            return Ok(());
        }
        if target == needed {
            break;
        }
    }
    Err(NoMemory)
}

/// Makes room for `additional` more items (`Vec::reserve`, fallibly): on
/// the usual path one compare.
#[inline(always)]
pub fn reserve<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), NoMemory> {
    if vec.capacity() - vec.len() >= additional {
        return Ok(());
    }
    reserve_slow(vec, additional)
}

#[cold]
#[inline(never)]
fn reserve_slow<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), NoMemory> {
    grow(vec, additional)
}

/// Appends `bytes` (`extend_from_slice`, fallibly).
#[inline]
pub fn extend(vec: &mut Vec<u8>, bytes: &[u8]) -> Result<(), NoMemory> {
    reserve(vec, bytes.len())?;
    vec.extend_from_slice(bytes);
    Ok(())
}

/// A copy of `bytes` (`to_vec`, fallibly), with no spare capacity.
#[inline]
pub fn copy(bytes: &[u8]) -> Result<Vec<u8>, NoMemory> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(bytes.len()).map_err(|_| NoMemory)?;
    vec.extend_from_slice(bytes);
    Ok(vec)
}

/// A boxed copy of `text` (`Box::from`, fallibly).
#[inline]
pub fn copy_str(text: &str) -> Result<Box<str>, NoMemory> {
    // Exactly as long as its capacity: boxing it does not reallocate.
    let bytes = copy(text.as_bytes())?.into_boxed_slice();
    // SAFETY: the bytes of a `str`.
    Ok(unsafe { std::str::from_boxed_utf8_unchecked(bytes) })
}

/// `len` zero bytes (`vec![0; len]`, fallibly).
#[inline]
pub fn zeroed(len: usize) -> Result<Vec<u8>, NoMemory> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(len).map_err(|_| NoMemory)?;
    vec.resize(len, 0);
    Ok(vec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_like_a_vec() {
        let mut v = Vec::new();
        for i in 0..1000u32 {
            push(&mut v, i).unwrap();
        }
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        assert!(v.capacity() < 2048);
        extend(&mut Vec::new(), b"abc").unwrap();
        assert_eq!(copy(b"xyz").unwrap(), b"xyz");
        assert_eq!(&*copy_str("héllo").unwrap(), "héllo");
        assert_eq!(zeroed(5).unwrap(), [0; 5]);
    }

    #[test]
    fn impossible_sizes_are_errors() {
        let mut v: Vec<u64> = vec![1];
        assert_eq!(reserve(&mut v, usize::MAX / 4), Err(NoMemory));
        assert_eq!(reserve(&mut v, 1 << 60), Err(NoMemory));
        assert!(zeroed(usize::MAX / 2).is_err());
        assert_eq!(v, [1]);
    }
}
