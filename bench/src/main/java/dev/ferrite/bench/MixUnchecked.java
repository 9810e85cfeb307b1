package dev.ferrite.bench;

import dev.ferrite.Ferrite;
import org.openjdk.jmh.annotations.Fork;

/**
 * The mix on the {@code unsafe} backend with {@code -Dferrite.checks=false}: what a user who opts
 * out of checks gets, beside {@link Mix}'s checked numbers. No backend parameter, so the runner's
 * {@code -p backend=...} leaves it on {@code unsafe}.
 */
@Fork(jvmArgsPrepend = "-Dferrite.checks=false")
public class MixUnchecked extends MixKernel {

    @Override
    protected String backend() {
        if (Ferrite.backend("unsafe").isChecked()) {
            throw new IllegalStateException("this fork should run with -Dferrite.checks=false");
        }
        return "unsafe";
    }
}
