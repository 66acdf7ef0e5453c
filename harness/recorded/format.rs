//! `Record` and the segment file: what the store keeps of one observation,
//! and the file one run adds to a shelf. Pure (bytes in, bytes out).
//!
//! A record is the probe's answer and the bodies the listener captured,
//! byte for byte: what `Observed::from_observation` reads, so a reused
//! observation is projected and judged by today's code and model exactly
//! as a fresh one. Only whole observations are records (the probe
//! answered, every body was read whole): a fault, a timeout or a crash is
//! never stored.
//!
//! A segment is `MAGIC`, the record count (u32, little endian), then one
//! zstd frame (with its checksum) holding the records, each: the case key
//! (32 bytes), the answer's JSON text, and the bodies, every byte string
//! preceded by its length (u32 LE). A segment that fails any check is
//! refused whole, never read in part.

use super::key::CaseKey;
use crate::js::json::Json;
use crate::observation::{Captured, Observation};
use std::io::Read;

/// The first bytes of every segment (and the format's version).
pub const MAGIC: &[u8; 8] = b"MCOBS\x00\x01\n";

/// The zstd level segments are written at: most of a record is request
/// bodies whose tool lists repeat from route to route, which a middling
/// level already folds; higher levels cost seconds per version for a few
/// per cent.
const LEVEL: i32 = 9;

/// One stored observation.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub case: CaseKey,
    /// The probe's `result` object.
    pub result: Json,
    /// Each captured body, in arrival order.
    pub bodies: Vec<Vec<u8>>,
}

impl Record {
    /// The record of an observation, if it is whole: the probe answered and
    /// every body reached the listener whole.
    pub fn of(case: CaseKey, observation: &Observation) -> Option<Record> {
        let Observation::Done { result, captured } = observation else {
            return None;
        };
        if captured.iter().any(|c| c.problem.is_some()) {
            return None;
        }
        Some(Record {
            case,
            result: result.clone(),
            bodies: captured.iter().map(|c| c.bytes.clone()).collect(),
        })
    }

    /// The observation this record keeps, moved out of it.
    pub fn into_observation(self) -> Observation {
        Observation::Done {
            result: self.result,
            captured: self
                .bodies
                .into_iter()
                .map(|bytes| Captured {
                    bytes,
                    problem: None,
                })
                .collect(),
        }
    }
}

/// Why a segment was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SegmentError {
    #[error("not a segment of this format (its first bytes are not the magic)")]
    Magic,
    #[error("the zstd frame does not decode: {0}")]
    Frame(String),
    #[error("record {record}: {problem}")]
    Record { record: usize, problem: String },
    #[error("it says {said} records and holds {held}")]
    Count { said: u32, held: usize },
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The segment of `records`.
pub fn write_segment(records: &[Record]) -> Vec<u8> {
    let mut raw = Vec::new();
    for r in records {
        raw.extend_from_slice(&r.case.0);
        put(&mut raw, r.result.to_compact().as_bytes());
        raw.extend_from_slice(&(r.bodies.len() as u32).to_le_bytes());
        for b in &r.bodies {
            put(&mut raw, b);
        }
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    let mut encoder =
        zstd::stream::Encoder::new(&mut out, LEVEL).expect("a zstd level in range always opens");
    encoder
        .include_checksum(true)
        .expect("the checksum flag is always accepted");
    std::io::Write::write_all(&mut encoder, &raw).expect("writing to a Vec cannot fail");
    encoder.finish().expect("finishing into a Vec cannot fail");
    out
}

/// The record count a segment says it holds (read without decoding it).
pub fn segment_count(bytes: &[u8]) -> Result<u32, SegmentError> {
    if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(SegmentError::Magic);
    }
    let at = MAGIC.len();
    Ok(u32::from_le_bytes(
        bytes[at..at + 4].try_into().expect("four bytes"),
    ))
}

/// The decoder under a segment's records, keeping the frame's own error
/// apart from a record that runs past the frame's end.
struct Frame<R> {
    inner: R,
    failed: Option<String>,
}

impl<R: Read> Read for Frame<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            self.failed.get_or_insert_with(|| e.to_string());
        })
    }
}

/// Every record of a segment, or why it is refused.
pub fn read_segment(bytes: &[u8]) -> Result<Vec<Record>, SegmentError> {
    let mut records = Vec::new();
    read_segment_each(bytes, |_| true, |r| records.push(r))?;
    Ok(records)
}

/// Hand each record of a segment whose case `wanted` keeps to `each`, in
/// the segment's order, then say whether the segment was whole: a caller
/// that must not use part of a damaged segment keeps what `each` made
/// aside until this returns `Ok`. The frame is decoded as it is read, and
/// each record is handed on as it is read, so a version's decoded segment
/// (tens of MB of request bodies) is never held whole.
pub fn read_segment_each(
    bytes: &[u8],
    wanted: impl Fn(&CaseKey) -> bool,
    mut each: impl FnMut(Record),
) -> Result<(), SegmentError> {
    let said = segment_count(bytes)?;
    let decoder = zstd::stream::read::Decoder::new(&bytes[MAGIC.len() + 4..])
        .map_err(|e| SegmentError::Frame(e.to_string()))?;
    let mut frame = Frame {
        inner: decoder,
        failed: None,
    };
    let mut held = 0usize;
    let bad = |record: usize, problem: &str| SegmentError::Record {
        record,
        problem: problem.to_string(),
    };
    loop {
        let raw = match read_raw(&mut frame) {
            Ok(Some(raw)) => raw,
            Ok(None) => break,
            // The frame's own failure names the damage better than the cut
            // it leaves in a record.
            Err(_) => {
                return Err(match frame.failed {
                    Some(e) => SegmentError::Frame(e),
                    None => bad(held, "cut short"),
                })
            }
        };
        let (case, text, bodies) = raw;
        let text = std::str::from_utf8(&text).map_err(|_| bad(held, "answer not UTF-8"))?;
        let result = Json::parse(text).map_err(|e| bad(held, &format!("answer: {e}")))?;
        held += 1;
        if wanted(&case) {
            each(Record {
                case,
                result,
                bodies,
            });
        }
    }
    if held != said as usize {
        return Err(SegmentError::Count { said, held });
    }
    Ok(())
}

/// A record's parts as written: its case, its answer's text, its bodies;
/// `None` where the frame ends between records.
type RawRecord = (CaseKey, Vec<u8>, Vec<Vec<u8>>);

fn read_raw(frame: &mut impl Read) -> std::io::Result<Option<RawRecord>> {
    let mut case = [0u8; 32];
    // A record starts only where the frame has more to give.
    loop {
        match frame.read(&mut case[..1]) {
            Ok(0) => return Ok(None),
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    frame.read_exact(&mut case[1..])?;
    let text = read_chunk(frame)?;
    let count = read_u32(frame)?;
    let mut bodies = Vec::new();
    for _ in 0..count {
        bodies.push(read_chunk(frame)?);
    }
    Ok(Some((CaseKey(case), text, bodies)))
}

fn read_u32(from: &mut impl Read) -> std::io::Result<u32> {
    let mut n = [0u8; 4];
    from.read_exact(&mut n)?;
    Ok(u32::from_le_bytes(n))
}

/// A byte string preceded by its length. The length is not trusted for an
/// allocation: the bytes are read as far as the frame holds them.
fn read_chunk(from: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let len = u64::from(read_u32(from)?);
    let mut out = Vec::new();
    from.take(len).read_to_end(&mut out)?;
    if out.len() as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::BodyProblem;

    fn record(n: u8) -> Record {
        Record {
            case: CaseKey([n; 32]),
            result: Json::parse(
                r#"{"applicable":true,"error":null,"executed":[],"note":"\ud800 lone","fetches":2}"#,
            )
            .unwrap(),
            bodies: vec![b"{\"tools\":[]}".to_vec(), vec![0xff, 0x00, b'x']],
        }
    }

    #[test]
    fn a_segment_round_trips_every_byte() {
        let records = vec![record(1), record(2)];
        let bytes = write_segment(&records);
        assert_eq!(segment_count(&bytes), Ok(2));
        assert_eq!(read_segment(&bytes).unwrap(), records);
        assert_eq!(read_segment(&write_segment(&[])).unwrap(), vec![]);
    }

    #[test]
    fn a_damaged_segment_is_refused_whole() {
        let bytes = write_segment(&[record(1), record(2)]);
        assert_eq!(read_segment(b"not a segment"), Err(SegmentError::Magic));
        let cut = &bytes[..bytes.len() - 5];
        assert!(matches!(read_segment(cut), Err(SegmentError::Frame(_))));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x55;
        assert!(read_segment(&flipped).is_err(), "the frame's checksum");
        let mut miscounted = bytes;
        miscounted[MAGIC.len()] = 3;
        assert_eq!(
            read_segment(&miscounted),
            Err(SegmentError::Count { said: 3, held: 2 })
        );
    }

    /// A segment whose frame is whole but holds `raw` as its records.
    fn framed(said: u32, raw: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&said.to_le_bytes());
        out.extend(zstd::stream::encode_all(raw, 1).unwrap());
        out
    }

    #[test]
    fn a_record_running_past_a_whole_frame_is_cut_short() {
        let whole = write_segment(&[record(1)]);
        let mut raw = zstd::stream::decode_all(&whole[MAGIC.len() + 4..]).unwrap();
        let one = raw.len();
        raw.extend_from_slice(&[9; 32]);
        raw.extend_from_slice(&1000u32.to_le_bytes());
        raw.extend_from_slice(b"{}");
        assert_eq!(
            read_segment(&framed(2, &raw)),
            Err(SegmentError::Record {
                record: 1,
                problem: "cut short".into()
            })
        );
        raw.truncate(one + 7);
        assert!(matches!(
            read_segment(&framed(2, &raw)),
            Err(SegmentError::Record { record: 1, .. })
        ));
        raw.truncate(one);
        assert_eq!(read_segment(&framed(1, &raw)).unwrap(), vec![record(1)]);
    }

    #[test]
    fn only_the_wanted_records_are_held_and_every_one_is_checked() {
        let bytes = write_segment(&[record(1), record(2), record(3)]);
        let mut kept = Vec::new();
        read_segment_each(&bytes, |k| k.0[0] == 2, |r| kept.push(r)).unwrap();
        assert_eq!(kept, vec![record(2)]);
        let mut miscounted = bytes;
        miscounted[MAGIC.len()] = 4;
        assert_eq!(
            read_segment_each(&miscounted, |k| k.0[0] == 2, |_| {}),
            Err(SegmentError::Count { said: 4, held: 3 })
        );
    }

    #[test]
    fn only_whole_observations_are_records() {
        let key = CaseKey([7; 32]);
        let done = |problem| Observation::Done {
            result: Json::parse(r#"{"applicable":true}"#).unwrap(),
            captured: vec![Captured {
                bytes: b"{}".to_vec(),
                problem,
            }],
        };
        let r = Record::of(key, &done(None)).unwrap();
        assert!(
            matches!(r.into_observation(), Observation::Done { captured, .. } if captured[0].bytes == b"{}")
        );
        assert!(Record::of(key, &done(Some(BodyProblem::OverLimit(10)))).is_none());
        assert!(Record::of(key, &Observation::Fault("f".into())).is_none());
        assert!(Record::of(key, &Observation::Crash("c".into())).is_none());
        assert!(Record::of(
            key,
            &Observation::Timeout(std::time::Duration::from_secs(1))
        )
        .is_none());
    }
}
