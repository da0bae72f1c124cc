//! Reading an input in pieces on a thread of its own, so that the kernel's copying overlaps the
//! work on the pieces already read. `lore match` and the matching benchmark read this way.

use std::io::{self, Read};
use std::sync::mpsc;

/// Size of one piece.
pub const PIECE: usize = 1 << 20;
/// Pieces read ahead of the consumer: two keep a scan fed; more would only hold memory.
const AHEAD: usize = 2;

/// Calls `each` with every piece of `reader` in order, reading up to [`AHEAD`] pieces ahead on
/// another thread. The buffers go back to the reader once `each` is done with them, so memory is
/// a few MiB whatever the input's size, and no buffer is zeroed twice (a fresh 1 MiB buffer per
/// piece spent a twentieth of a scan in `memset`). Stops at the first error of either side.
pub fn each_piece<E: From<io::Error>>(
    reader: impl Read + Send + 'static,
    mut each: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let (full, pieces) = mpsc::sync_channel::<io::Result<(Vec<u8>, usize)>>(AHEAD);
    let (give_back, spare) = mpsc::channel::<Vec<u8>>();
    let reading = std::thread::spawn(move || read_into(reader, &full, &spare));
    let mut result = Ok(());
    for piece in &pieces {
        match piece {
            Ok((buf, n)) => {
                if let Err(e) = each(&buf[..n]) {
                    result = Err(e);
                    break;
                }
                // The reader may have stopped already; the buffer is then simply dropped.
                let _ = give_back.send(buf);
            }
            Err(e) => {
                result = Err(e.into());
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
    full: &mpsc::SyncSender<io::Result<(Vec<u8>, usize)>>,
    spare: &mpsc::Receiver<Vec<u8>>,
) {
    loop {
        let mut buf = spare.try_recv().unwrap_or_else(|_| vec![0u8; PIECE]);
        match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if full.send(Ok((buf, n))).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
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

    #[test]
    fn every_byte_in_order_and_errors_passed_on() {
        let data: Vec<u8> = (0..(3 * PIECE + 12345)).map(|i| (i % 251) as u8).collect();
        let mut seen = Vec::new();
        each_piece::<io::Error>(io::Cursor::new(data.clone()), |piece| {
            seen.extend_from_slice(piece);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, data);

        // The consumer's error stops the reading.
        let mut calls = 0;
        let stopped = each_piece::<io::Error>(io::Cursor::new(data), |_| {
            calls += 1;
            Err(io::Error::other("enough"))
        });
        assert_eq!(calls, 1);
        assert_eq!(stopped.unwrap_err().to_string(), "enough");

        // A read error reaches the consumer.
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let failed = each_piece::<io::Error>(Broken, |_| Ok(()));
        assert_eq!(failed.unwrap_err().to_string(), "disk on fire");
    }
}
