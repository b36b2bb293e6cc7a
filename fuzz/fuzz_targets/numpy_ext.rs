//! Arbitrary bytes as a numpy extension payload: the parser never panics
//! and never reads past the payload; what it accepts is consistent (the
//! data is exactly the dimensions times the item size, each dimension fits
//! numpy's sizes, the dtype is one of the closed list) and its header,
//! written again from the parsed fields, is the payload's own (padding
//! bytes aside). The padding the writer picks always aligns the data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::msgpack::numpy::{checked_size, header_len, padding, parse, parse_dtype, write_header, FLAG_SCALAR};
use orcodec_core::msgpack::writer::ext_header_len;

fuzz_target!(|data: &[u8]| {
    if let Ok(header) = parse(data) {
        let itemsize = header.dtype.itemsize;
        assert_eq!(parse_dtype(header.dtype.text.as_bytes()), Some(header.dtype));
        assert!(header.ndim() <= 64 && !(header.scalar && header.ndim() > 0));
        assert!(header.dims().all(|d| d <= i64::MAX as u64));
        let size = checked_size(header.dims(), itemsize).expect("accepted sizes are valid");
        assert_eq!(size, header.data.len() as u64);
        // The data is the payload's tail.
        let start = data.len() - header.data.len();
        assert_eq!(header.data.as_ptr(), data[start..].as_ptr());
        let pad = data[3] as usize;
        assert_eq!(start, header_len(header.dtype.text.len(), header.ndim(), pad));
        let mut again = vec![0xaa; start];
        write_header(&mut again, header.scalar, header.dtype.text, header.dims(), pad);
        let unpadded = start - pad;
        assert_eq!(again[..unpadded], data[..unpadded]);
        assert!(again[unpadded..].iter().all(|&b| b == 0));
        assert_eq!(data[0] & FLAG_SCALAR != 0, header.scalar);
    }
    // Where the writer puts the data: at a multiple of the alignment.
    if data.len() >= 6 {
        let at = u16::from_le_bytes([data[0], data[1]]) as usize;
        let header = 5 + data[2] as usize;
        let data_len = u16::from_le_bytes([data[3], data[4]]) as usize * (1 + data[5] as usize % 300);
        let align = 1 << (data[5] % 4);
        let pad = padding(at, header, data_len, align);
        let payload = header + pad + data_len;
        assert_eq!((at + ext_header_len(payload) + header + pad) % align, 0);
    }
});
