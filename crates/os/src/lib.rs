//! The OS side of virtual memory (see README.md).
