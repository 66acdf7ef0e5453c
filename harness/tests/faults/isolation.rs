use crate::support::*;

pub fn scenarios() -> Vec<Scenario> {
    vec![]
}
