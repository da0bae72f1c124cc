//! Reading an input in pieces on a thread of its own, so that the kernel's copying overlaps the
//! work on the pieces already read. `lore match` and the matching benchmark read this way.
//!
//! Each piece is a buffer the consumer takes over: [`HEAD`] bytes of room, then the data. The
//! scanner puts the lines it keeps from the piece before into that room and scans the buffer
//! where it is ([`crate::signature::Scanner::feed_owned`]), so the input is copied once, by the
//! kernel; the consumer hands a buffer back for the reader to fill next.

use std::io::{self, Read};
use std::sync::mpsc;

/// Data in one piece: each is scanned as it arrives, as a region split over all cores.
pub const PIECE: usize = 2 << 20;
/// Room in front of each piece's data, for the lines a scanner keeps from the piece before (a
/// few lines of context and a partial line; when they do not fit, the piece is copied).
pub const HEAD: usize = 64 << 10;
/// Pieces waiting for the consumer besides the one being filled: none, so the reader fills the
/// next piece while the consumer scans this one (a piece more held 2 MiB and gained nothing).
const AHEAD: usize = 0;

/// Calls `each` with every piece of `reader` in order (`piece[HEAD..]` is the data, at most
/// [`PIECE`] bytes, filled completely except at the end of the input), the next piece being read
/// on another thread meanwhile. `each` gives back a buffer for the reader to fill next, so
/// memory is a few pieces whatever the input's size, and no buffer is zeroed twice. Stops at the
/// first error of either side.
pub fn each_piece<E: From<io::Error>>(
    reader: impl Read + Send + 'static,
    mut each: impl FnMut(Vec<u8>) -> Result<Vec<u8>, E>,
) -> Result<(), E> {
    let (full, pieces) = mpsc::sync_channel::<io::Result<Vec<u8>>>(AHEAD);
    let (give_back, spare) = mpsc::channel::<Vec<u8>>();
    let reading = std::thread::spawn(move || read_into(reader, &full, &spare));
    let mut result = Ok(());
    for piece in &pieces {
        match piece.map_err(E::from).and_then(&mut each) {
            // The reader may have stopped already; the buffer is then simply dropped.
            Ok(spare) => {
                let _ = give_back.send(spare);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    // Dropping the receiver stops a reader that is still going (its next send fails).
    drop(pieces);
    let _ = reading.join();
    result
}

fn read_into(
    mut reader: impl Read,
    full: &mpsc::SyncSender<io::Result<Vec<u8>>>,
    spare: &mpsc::Receiver<Vec<u8>>,
) {
    loop {
        let mut buf = spare.try_recv().unwrap_or_default();
        // Only bytes the buffer never had are zeroed.
        buf.resize(HEAD + PIECE, 0);
        let mut filled = HEAD;
        // A pipe gives a few KiB per read: fill the piece, so that it is scanned in place.
        // `Ok(true)`: the input ended; an error comes after what was read before it.
        let outcome = loop {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => break Ok(true),
                Ok(n) => {
                    filled += n;
                    if filled == buf.len() {
                        break Ok(false);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        if filled > HEAD {
            buf.truncate(filled);
            if full.send(Ok(buf)).is_err() {
                return;
            }
        }
        match outcome {
            Ok(false) => {}
            Ok(true) => return,
            Err(e) => {
                let _ = full.send(Err(e));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives at most a few KiB per read, as a pipe does.
    struct Trickle(io::Cursor<Vec<u8>>);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(4096 + 7);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn every_byte_in_order_in_full_pieces_and_errors_passed_on() {
        let data: Vec<u8> = (0..(2 * PIECE + 12345)).map(|i| (i % 251) as u8).collect();
        for trickle in [false, true] {
            let reader: Box<dyn Read + Send> = if trickle {
                Box::new(Trickle(io::Cursor::new(data.clone())))
            } else {
                Box::new(io::Cursor::new(data.clone()))
            };
            let mut seen = Vec::new();
            let mut sizes = Vec::new();
            each_piece::<io::Error>(reader, |piece| {
                sizes.push(piece.len() - HEAD);
                seen.extend_from_slice(&piece[HEAD..]);
                Ok(piece)
            })
            .unwrap();
            assert_eq!(seen, data);
            assert_eq!(sizes, [PIECE, PIECE, 12345], "pieces are filled");
        }

        // The consumer's error stops the reading.
        let mut calls = 0;
        let stopped = each_piece::<io::Error>(io::Cursor::new(data), |_| {
            calls += 1;
            Err(io::Error::other("enough"))
        });
        assert_eq!(calls, 1);
        assert_eq!(stopped.unwrap_err().to_string(), "enough");

        // A read error reaches the consumer, after what was read before it.
        struct Broken(bool);
        impl Read for Broken {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if std::mem::replace(&mut self.0, false) {
                    buf[..3].copy_from_slice(b"abc");
                    return Ok(3);
                }
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut got = Vec::new();
        let failed = each_piece::<io::Error>(Broken(true), |piece| {
            got.extend_from_slice(&piece[HEAD..]);
            Ok(piece)
        });
        assert_eq!(got, b"abc");
        assert_eq!(failed.unwrap_err().to_string(), "disk on fire");
    }
}
