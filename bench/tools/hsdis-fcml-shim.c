/*
 * A disassembler for HotSpot's -XX:+PrintAssembly and JMH's perfasm on JDK 9+, from Debian's
 * FCML plugin. The package libhsdis0-fcml exports only the JDK 8 entry point
 * decode_instructions(start, end, ...); JDK 9+ looks up decode_instructions_virtual and, not
 * finding it, prints raw bytes. For code in the JVM's own memory the virtual address and the buffer
 * are the same, so this shim forwards one call to the other.
 *
 *   apt-get install -y libhsdis0-fcml
 *   gcc -O2 -shared -fPIC bench/tools/hsdis-fcml-shim.c -o /tmp/hsdis/hsdis-amd64.so -ldl
 *   LD_LIBRARY_PATH=/tmp/hsdis java -XX:+UnlockDiagnosticVMOptions -XX:+PrintAssembly ...
 *   LD_LIBRARY_PATH=/tmp/hsdis java -cp bench/target/ferrite-bench.jar org.openjdk.jmh.Main \
 *       'map.MapOps.getHit$' -p backend=unsafe -f 1 -prof 'perfasm:events=cpu-clock'
 *
 * Output is AT&T syntax; FCML prints "Argument 0 is unknown." once per method for HotSpot's
 * options string, which it does not read.
 */
#include <dlfcn.h>
#include <stdint.h>

typedef void *(*event_callback)(void *stream, const char *event, void *arg);
typedef int (*printf_callback)(void *stream, const char *format, ...);
typedef void *(*decode_instructions_fn)(void *start, void *end, event_callback event, void *event_stream,
                                        printf_callback print, void *print_stream, const char *options);

static decode_instructions_fn fcml_decode;

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer,
                                  uintptr_t length, event_callback event, void *event_stream,
                                  printf_callback print, void *print_stream, const char *options,
                                  int newline) {
    (void) start_va;
    (void) end_va;
    (void) newline;
    if (fcml_decode == 0) {
        void *library = dlopen("libhsdis.so.0", RTLD_NOW);
        if (library == 0) {
            return 0;
        }
        fcml_decode = (decode_instructions_fn) dlsym(library, "decode_instructions");
        if (fcml_decode == 0) {
            return 0;
        }
    }
    return fcml_decode(buffer, buffer + length, event, event_stream, print, print_stream, options);
}
