//! Translation schemes and VMCPI (see README.md).
