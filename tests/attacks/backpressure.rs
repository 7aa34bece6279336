//! A client that sends requests and never reads the replies.
