//! Caches whose types belong to the parts of the extension that use them,
//! kept in the state without the state knowing those types: each part names
//! its slot here (one index each) and its type where it is defined. A slot
//! is made the first time it is asked for and dropped with the state.

use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr::null_mut;

/// The slots, one per cache.
pub mod slot {
    /// `decode::key_cache`: the key and short-value tables.
    pub const KEY_TABLES: usize = 0;
    /// `encode::types::dataclass`: field names and class facts.
    pub const DATACLASSES: usize = 1;
    /// `encode::types::numpy`: numpy's types for the walker.
    pub const NUMPY_TYPES: usize = 2;
    /// `decode::numpy`: numpy's C API and the descriptors made.
    pub const NUMPY_API: usize = 3;
    /// `decode::typed::stdtypes`: fixed-offset zones, the UUID layout, the
    /// Decimal layout check.
    pub const STDTYPES: usize = 4;
    /// `decode::typed::run`: the item stack kept between typed decodes.
    pub const TYPED_STACK: usize = 5;
    /// `transcode`: the transcoders' working memory.
    pub const TRANSCODERS: usize = 6;
    pub const COUNT: usize = 7;
}

/// A slot of type `T`.
pub struct Slot<T> {
    index: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Slot<T> {
    pub const fn at(index: usize) -> Slot<T> {
        assert!(index < slot::COUNT);
        Slot { index, _t: PhantomData }
    }
}

/// Frees a slot's value, of the type it was made as.
type DropFn = unsafe fn(*mut ());

pub struct Scratch {
    values: [Cell<*mut ()>; slot::COUNT],
    drops: [Cell<Option<DropFn>>; slot::COUNT],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch { values: core::array::from_fn(|_| Cell::new(null_mut())), drops: Default::default() }
    }
}

unsafe fn drop_boxed<T>(value: *mut ()) {
    drop(Box::from_raw(value as *mut T));
}

impl Scratch {
    /// The cache of `slot`, made with `T::default()` on first use.
    ///
    /// # Safety
    /// The GIL contract, and no other reference to this slot's value is
    /// alive while the returned one is (its users take what they need and
    /// let go before any Python code that could reach the slot again runs).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get<T: Default>(&self, slot: Slot<T>) -> &mut T {
        let value = self.values[slot.index].get();
        if !value.is_null() {
            return &mut *(value as *mut T);
        }
        self.make(slot)
    }

    #[cold]
    #[inline(never)]
    #[allow(clippy::mut_from_ref)]
    unsafe fn make<T: Default>(&self, slot: Slot<T>) -> &mut T {
        let value = Box::into_raw(Box::<T>::default());
        self.values[slot.index].set(value as *mut ());
        self.drops[slot.index].set(Some(drop_boxed::<T>));
        &mut *value
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for (value, drop) in self.values.iter().zip(self.drops.iter()) {
            let value = value.replace(null_mut());
            if let (false, Some(drop)) = (value.is_null(), drop.get()) {
                // SAFETY: `value` was boxed as the type `drop` frees.
                unsafe { drop(value) };
            }
        }
    }
}
