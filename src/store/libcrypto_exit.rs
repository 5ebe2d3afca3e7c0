//! libpq signs its SCRAM login with OpenSSL's libcrypto, which frees its locks in an exit
//! handler. A pool thread that is still connecting when the process exits (a pool refilling
//! after the database came back, say) then takes a freed lock and the process dies of
//! SIGSEGV on its way out. Asked before its first use, libcrypto registers no such handler
//! and leaves its memory to the kernel, as every other library does.

use std::sync::Once;

/// `OPENSSL_INIT_NO_ATEXIT` of OpenSSL 3's `crypto.h`.
const OPENSSL_INIT_NO_ATEXIT: u64 = 0x0008_0000;

/// Tells libcrypto (loaded with libpq) not to clean up at exit. Call it before the process
/// first connects to PostgreSQL; later calls do nothing. Without libcrypto in the process it
/// does nothing either.
pub fn keep_libcrypto_through_exit() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: `dlsym` with RTLD_DEFAULT only looks a name up in the libraries the
            // process has loaded; a null answer means libcrypto is not among them.
            let symbol =
                unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"OPENSSL_init_crypto".as_ptr()) };
            if symbol.is_null() {
                return;
            }
            // SAFETY: the symbol is OpenSSL's `int OPENSSL_init_crypto(uint64_t opts, const
            // OPENSSL_INIT_SETTINGS *settings)`, which accepts a null `settings`.
            let init: extern "C" fn(u64, *const libc::c_void) -> libc::c_int =
                unsafe { std::mem::transmute(symbol) };
            if init(OPENSSL_INIT_NO_ATEXIT, std::ptr::null()) != 1 {
                tracing::debug!("libcrypto refused to skip its exit handler");
            }
        }
    });
}
