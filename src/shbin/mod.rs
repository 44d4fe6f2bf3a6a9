//! DVLB/DVLP/DVLE read and write.
