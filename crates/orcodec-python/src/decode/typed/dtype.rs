//! The element types a numpy array target can have (`NDArray[...]`), their
//! names and numpy's spelling of each.

/// The element types an array target can have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dtype {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

const DTYPES: [Dtype; 12] = [
    Dtype::Bool,
    Dtype::I8,
    Dtype::I16,
    Dtype::I32,
    Dtype::I64,
    Dtype::U8,
    Dtype::U16,
    Dtype::U32,
    Dtype::U64,
    Dtype::F16,
    Dtype::F32,
    Dtype::F64,
];

const NAMES: [&str; 12] =
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"];

/// numpy's spelling of each dtype in this machine's byte order.
#[cfg(target_endian = "little")]
const TEXTS: [&str; 12] = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8"];
#[cfg(target_endian = "big")]
const TEXTS: [&str; 12] = ["|b1", "|i1", ">i2", ">i4", ">i8", "|u1", ">u2", ">u4", ">u8", ">f2", ">f4", ">f8"];

impl Dtype {
    /// The dtype of the spec's code (`orcodec._typed`'s order).
    pub fn from_code(code: i64) -> Option<Dtype> {
        usize::try_from(code).ok().and_then(|i| DTYPES.get(i).copied())
    }

    fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    pub fn text(self) -> &'static str {
        TEXTS[self.index()]
    }

    /// What an element is called in messages.
    pub fn element(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::F16 | Dtype::F32 | Dtype::F64 => "float",
            _ => "int",
        }
    }

    /// The range of an int dtype, for messages.
    pub fn int_range(self) -> (i128, i128) {
        match self {
            Dtype::I8 => (i8::MIN as i128, i8::MAX as i128),
            Dtype::I16 => (i16::MIN as i128, i16::MAX as i128),
            Dtype::I32 => (i32::MIN as i128, i32::MAX as i128),
            Dtype::I64 => (i64::MIN as i128, i64::MAX as i128),
            Dtype::U8 => (0, u8::MAX as i128),
            Dtype::U16 => (0, u16::MAX as i128),
            Dtype::U32 => (0, u32::MAX as i128),
            _ => (0, u64::MAX as i128),
        }
    }
}
