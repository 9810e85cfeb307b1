package dev.ferrite.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One JMH benchmark method of this module, set up and called outside JMH, for {@link Paired}: its
 * class and the {@code @State} classes it takes are made with their no-argument constructors, their
 * {@code @Param} fields set, their {@code @Setup} methods (trial and iteration level) run, and the
 * method called by reflection. A spec names it relative to {@code dev.ferrite.bench}, nested
 * classes with dots, and sets parameters after a colon:
 * {@code map.MapPeers.Chm.getHit:entries=1000000}. A parameter with one value in its
 * {@code @Param} may be left out; one with several must be named.
 *
 * <p>A {@code @Setup} method that takes {@link BenchmarkParams} (to build only what its benchmark
 * method uses) must have a public twin of the same name taking that method's name as a
 * {@code String}, which is what runs here. Methods run by several threads, at
 * {@code Level.Invocation} setups or with other JMH arguments are refused. Not thread-safe.
 */
final class PairedSubject implements Paired.Side, AutoCloseable {

    private static final String PACKAGE = "dev.ferrite.bench.";

    private final String spec;
    private final Method method;
    private final Object target;
    private final Object[] args;
    private final List<Object> states = new ArrayList<>();
    private final int operations;

    private PairedSubject(String spec, Method method, Object target, Object[] args, int operations) {
        this.spec = spec;
        this.method = method;
        this.target = target;
        this.args = args;
        this.operations = operations;
    }

    /**
     * Makes and sets up the benchmark a spec names.
     *
     * @param spec {@code Class.method[:name=value,...]}, the class relative to {@code dev.ferrite.bench}
     * @return the subject, ready to {@link #call}
     * @throws IllegalArgumentException if the spec names no benchmark method, a parameter it does
     *                                  not have, or leaves out one with several values
     * @throws Exception                what a setup throws
     */
    static PairedSubject of(String spec) throws Exception {
        int colon = spec.indexOf(':');
        Map<String, String> params = parameters(spec, colon < 0 ? "" : spec.substring(colon + 1));
        Class<?> type = classOf(spec);
        String name = name(spec);
        Method m = benchmarkMethod(spec, type, name.substring(name.lastIndexOf('.') + 1));
        java.util.Set<String> used = new java.util.HashSet<>();
        Object target = newState(spec, type, params, used);
        List<Object> made = new ArrayList<>(List.of(target));
        Object[] args = new Object[m.getParameterCount()];
        for (int i = 0; i < args.length; i++) {
            Class<?> p = m.getParameterTypes()[i];
            if (!p.isAnnotationPresent(State.class)) {
                throw new IllegalArgumentException(spec + " takes a " + p.getSimpleName()
                        + ", which runs only under JMH (paired runs pass @State objects only)");
            }
            args[i] = newState(spec, p, params, used);
            made.add(args[i]);
        }
        params.keySet().removeAll(used);
        if (!params.isEmpty()) {
            throw new IllegalArgumentException(spec + " has no parameter " + params.keySet());
        }
        OperationsPerInvocation ops = m.getAnnotation(OperationsPerInvocation.class);
        PairedSubject s = new PairedSubject(spec, m, target, args, ops == null ? 1 : ops.value());
        try {
            for (Object state : made) {
                s.states.add(state);
                runAll(state, Setup.class, m.getName());
            }
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** @return the spec this subject was made from */
    String spec() {
        return spec;
    }

    /** @return operations one call performs ({@code @OperationsPerInvocation}) */
    @Override
    public int operations() {
        return operations;
    }

    /**
     * Calls the benchmark method once.
     *
     * @return what it returned (null for void)
     * @throws Exception what it threw
     */
    @Override
    public Object call() throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    /** @return the JVM flags the benchmark's class asks its forks for ({@code @Fork}) */
    static List<String> forkFlags(String spec) {
        Fork f = classOf(spec).getAnnotation(Fork.class);
        List<String> flags = new ArrayList<>();
        if (f != null) {
            for (String[] part : List.of(f.jvmArgsPrepend(), f.jvmArgs(), f.jvmArgsAppend())) {
                if (!(part.length == 1 && part[0].equals(Fork.BLANK_ARGS))) {
                    flags.addAll(Arrays.asList(part));
                }
            }
        }
        return flags;
    }

    /** Runs the {@code @TearDown} methods of every state set up, the benchmark's own last. */
    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = states.size() - 1; i >= 0; i--) {
            try {
                runAll(states.get(i), TearDown.class, method.getName());
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        states.clear();
        if (first != null) {
            throw first;
        }
    }

    /** @return the name of the method a JMH run is measuring (for setups that build only what it uses) */
    static String methodOf(BenchmarkParams params) {
        return params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    }

    private static Map<String, String> parameters(String spec, String list) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String kv : list.split(",")) {
            if (kv.isEmpty()) {
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + kv + "' in " + spec + " is no name=value");
            }
            params.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return params;
    }

    /** @return a spec's {@code Class.method}, without its parameters */
    private static String name(String spec) {
        int colon = spec.indexOf(':');
        return colon < 0 ? spec : spec.substring(0, colon);
    }

    /** @return the class a spec names */
    private static Class<?> classOf(String spec) {
        String name = name(spec);
        int dot = name.lastIndexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("'" + spec + "' names no method: write Class.method, as Mix.perChunk");
        }
        return benchmarkClass(spec, name.substring(0, dot));
    }

    private static Class<?> benchmarkClass(String spec, String relative) {
        // Nested classes are written with dots: try the longest package prefix first.
        String name = PACKAGE + relative;
        while (true) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                int dot = name.lastIndexOf('.');
                if (dot <= PACKAGE.length() - 1) {
                    throw new IllegalArgumentException("no class " + relative + " in " + PACKAGE
                            + " (from '" + spec + "')");
                }
                name = name.substring(0, dot) + '$' + name.substring(dot + 1);
            }
        }
    }

    private static Method benchmarkMethod(String spec, Class<?> type, String name) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.isAnnotationPresent(Benchmark.class)) {
                Threads t = m.getAnnotation(Threads.class);
                if (t != null && t.value() != 1) {
                    throw new IllegalArgumentException(spec + " runs " + t.value() + " threads under JMH; paired runs use one");
                }
                return m;
            }
        }
        throw new IllegalArgumentException("no @Benchmark method " + name + " in " + type.getName() + " (from '" + spec + "')");
    }

    /** Makes a state object and sets its parameters, adding to {@code used} the names it has. */
    private static Object newState(String spec, Class<?> type, Map<String, String> params, java.util.Set<String> used)
            throws Exception {
        Object o = type.getDeclaredConstructor().newInstance();
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                Param p = f.getAnnotation(Param.class);
                if (p == null) {
                    continue;
                }
                String v = params.get(f.getName());
                used.add(f.getName());
                if (v == null) {
                    if (p.value().length != 1) {
                        throw new IllegalArgumentException("parameter " + f.getName() + " of " + type.getSimpleName()
                                + " has the values " + Arrays.toString(p.value()) + ": name one, as " + spec
                                + (spec.contains(":") ? "," : ":") + f.getName() + "=" + (p.value().length > 0 ? p.value()[0] : "..."));
                    }
                    v = p.value()[0];
                }
                f.setAccessible(true);
                f.set(o, convert(f.getType(), v));
            }
        }
        return o;
    }

    private static Object convert(Class<?> type, String v) {
        if (type == String.class) {
            return v;
        } else if (type == int.class) {
            return Integer.parseInt(v);
        } else if (type == long.class) {
            return Long.parseLong(v);
        } else if (type == boolean.class) {
            return Boolean.parseBoolean(v);
        } else if (type == double.class) {
            return Double.parseDouble(v);
        }
        throw new IllegalArgumentException("parameters of type " + type.getName() + " are not supported");
    }

    /** Runs a state's setup or teardown methods, superclasses' first (for setups). */
    private static void runAll(Object state, Class<? extends java.lang.annotation.Annotation> kind, String benchmark)
            throws Exception {
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = state.getClass(); c != Object.class; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        for (Class<?> c : chain) {
            for (Method m : c.getDeclaredMethods()) {
                java.lang.annotation.Annotation a = m.getAnnotation(kind);
                if (a == null) {
                    continue;
                }
                Level level = a instanceof Setup ? ((Setup) a).value() : ((TearDown) a).value();
                if (level == Level.Invocation) {
                    throw new IllegalArgumentException(m + " runs per invocation; paired runs do not support it");
                }
                m.setAccessible(true);
                try {
                    if (m.getParameterCount() == 0) {
                        m.invoke(state);
                    } else if (m.getParameterCount() == 1 && m.getParameterTypes()[0] == BenchmarkParams.class) {
                        Method twin = c.getMethod(m.getName(), String.class);
                        twin.invoke(state, benchmark);
                    } else {
                        throw new IllegalArgumentException(m + " takes JMH arguments paired runs cannot give");
                    }
                } catch (NoSuchMethodException e) {
                    throw new IllegalArgumentException(m + " takes BenchmarkParams and has no public twin "
                            + m.getName() + "(String method) for paired runs");
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
                }
            }
        }
    }
}
