pub mod naive;
pub mod public;
