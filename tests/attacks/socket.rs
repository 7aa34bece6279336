//! Floods of the control socket.
