package dev.ferrite.bench;

import org.openjdk.jmh.annotations.Param;

/** The mix on every backend, checked: the default every user gets. */
public class Mix extends MixKernel {

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Override
    protected String backend() {
        return backend;
    }
}
