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

    /// The observation this record keeps.
    pub fn observation(&self) -> Observation {
        Observation::Done {
            result: self.result.clone(),
            captured: self
                .bodies
                .iter()
                .map(|b| Captured {
                    bytes: b.clone(),
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

/// Every record of a segment, or why it is refused.
pub fn read_segment(bytes: &[u8]) -> Result<Vec<Record>, SegmentError> {
    let said = segment_count(bytes)?;
    let raw = zstd::stream::decode_all(&bytes[MAGIC.len() + 4..])
        .map_err(|e| SegmentError::Frame(e.to_string()))?;
    let mut records = Vec::new();
    let mut at = 0usize;
    let bad = |record: usize, problem: &str| SegmentError::Record {
        record,
        problem: problem.to_string(),
    };
    while at < raw.len() {
        let n = records.len();
        let mut take = |len: usize| -> Result<&[u8], SegmentError> {
            let end = at
                .checked_add(len)
                .filter(|e| *e <= raw.len())
                .ok_or_else(|| bad(n, "cut short"))?;
            let slice = &raw[at..end];
            at = end;
            Ok(slice)
        };
        let case = CaseKey(take(32)?.try_into().expect("32 bytes"));
        let len = u32::from_le_bytes(take(4)?.try_into().expect("four bytes")) as usize;
        let text = std::str::from_utf8(take(len)?).map_err(|_| bad(n, "answer not UTF-8"))?;
        let result = Json::parse(text).map_err(|e| bad(n, &format!("answer: {e}")))?;
        let count = u32::from_le_bytes(take(4)?.try_into().expect("four bytes"));
        let mut bodies = Vec::new();
        for _ in 0..count {
            let len = u32::from_le_bytes(take(4)?.try_into().expect("four bytes")) as usize;
            bodies.push(take(len)?.to_vec());
        }
        records.push(Record {
            case,
            result,
            bodies,
        });
    }
    if records.len() != said as usize {
        return Err(SegmentError::Count {
            said,
            held: records.len(),
        });
    }
    Ok(records)
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
            matches!(r.observation(), Observation::Done { captured, .. } if captured[0].bytes == b"{}")
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
