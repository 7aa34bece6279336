//! Files that are not what they seem: FIFOs, devices and huge files where agg expects a regular file.
