//! Jobs outliving a server that is killed.
